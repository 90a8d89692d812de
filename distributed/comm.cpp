#include "distributed/comm.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "distributed/wire.hpp"

namespace kpn::distributed {
namespace {

constexpr int kTagChannel = 1;  // DATA, EOS, CREDITS, BROKEN: in order between two ranks
constexpr int kTagAbort = 2;

enum Kind : std::uint8_t { kData = 1, kEos = 2, kCredits = 3, kBroken = 4 };

std::string header(Kind kind, std::uint32_t channel) {
  std::string out;
  detail::put_raw(out, static_cast<std::uint8_t>(kind));
  detail::put_raw(out, channel);
  return out;
}

}  // namespace

struct Comm::Pending {
  std::string bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

Comm::Comm(int rank, int size) : rank_(rank), size_(size), sent_to_(size, 0), received_from_(size, 0) {
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
}

Comm::~Comm() {
  if (thread_.joinable()) finish();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

OutLink& Comm::add_out_link(std::uint32_t channel, int reader_rank) {
  OutLink& l = out_links_.emplace_back();
  l.channel = channel;
  l.peer = reader_rank;
  out_by_channel_[channel] = &l;
  return l;
}

InLink& Comm::add_in_link(std::uint32_t channel, int writer_rank) {
  InLink& l = in_links_.emplace_back();
  l.channel = channel;
  l.peer = writer_rank;
  in_by_channel_[channel] = &l;
  return l;
}

void Comm::start() { thread_ = std::thread([this] { loop(); }); }

void Comm::post_data(const OutLink& link, std::uint32_t count, std::string payload) {
  std::string bytes = header(kData, link.channel);
  detail::put_raw(bytes, count);
  bytes += payload;
  values_sent_.fetch_add(count, std::memory_order_relaxed);
  batches_sent_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard g(mutex_);
    outgoing_.push_back({link.peer, kTagChannel, std::move(bytes)});
  }
  wake_.notify_one();
}

void Comm::post_eos(const OutLink& link) {
  {
    std::lock_guard g(mutex_);
    outgoing_.push_back({link.peer, kTagChannel, header(kEos, link.channel)});
  }
  wake_.notify_one();
}

void Comm::post_credits(const InLink& link, std::uint64_t n) {
  {
    std::lock_guard g(mutex_);
    credits_[link.channel] += n;
  }
  wake_.notify_one();
}

void Comm::post_broken(const InLink& link) {
  {
    std::lock_guard g(mutex_);
    outgoing_.push_back({link.peer, kTagChannel, header(kBroken, link.channel)});
  }
  wake_.notify_one();
}

void Comm::post_abort(const std::string& text) {
  {
    std::lock_guard g(mutex_);
    for (int r = 0; r < size_; ++r) {
      if (r != rank_) outgoing_.push_back({r, kTagAbort, text});
    }
  }
  wake_.notify_one();
}

std::optional<std::string> Comm::remote_failure() const {
  std::lock_guard g(mutex_);
  return remote_failure_;
}

void Comm::finish() {
  {
    std::lock_guard g(mutex_);
    local_done_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

CommStats Comm::stats() const {
  CommStats s;
  s.values_sent = values_sent_.load();
  s.batches_sent = batches_sent_.load();
  s.bytes_sent = bytes_sent_.load();
  s.control_sent = control_sent_.load();
  s.values_received = values_received_.load();
  s.batches_received = batches_received_.load();
  s.bytes_received = bytes_received_.load();
  return s;
}

void Comm::isend(int dest, int tag, std::string bytes) {
  auto p = std::make_unique<Pending>();  // never moves: MPI holds a pointer into its buffer until done
  p->bytes = std::move(bytes);
  MPI_Isend(p->bytes.data(), static_cast<int>(p->bytes.size()), MPI_BYTE, dest, tag, comm_, &p->request);
  ++sent_to_[static_cast<std::size_t>(dest)];
  bytes_sent_.fetch_add(p->bytes.size(), std::memory_order_relaxed);
  pending_.push_back(std::move(p));
}

bool Comm::send_posted() {
  std::vector<Outgoing> out;
  std::map<std::uint32_t, std::uint64_t> credits;
  {
    std::lock_guard g(mutex_);
    out.swap(outgoing_);
    credits.swap(credits_);
  }
  for (auto& o : out) {
    if (o.tag != kTagChannel || static_cast<std::uint8_t>(o.bytes[0]) != kData) control_sent_.fetch_add(1, std::memory_order_relaxed);
    isend(o.dest, o.tag, std::move(o.bytes));
  }
  // One CREDITS message per reader's-side peer, whatever number of channels and reads it covers.
  std::map<int, std::pair<std::uint32_t, std::string>> by_peer;
  for (const auto& [channel, n] : credits) {
    auto& [count, body] = by_peer[in_by_channel_.at(channel)->peer];
    ++count;
    detail::put_raw(body, channel);
    detail::put_raw(body, n);
  }
  for (auto& [peer, entry] : by_peer) {
    std::string bytes;
    detail::put_raw(bytes, static_cast<std::uint8_t>(kCredits));
    detail::put_raw(bytes, entry.first);
    bytes += entry.second;
    control_sent_.fetch_add(1, std::memory_order_relaxed);
    isend(peer, kTagChannel, std::move(bytes));
  }
  return !out.empty() || !credits.empty();
}

bool Comm::receive_arrived() {
  bool any = false;
  for (int i = 0; i < 64; ++i) {  // bounded, so that sends and the end are looked at in between
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &st);
    if (!flag) break;
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    std::string bytes(static_cast<std::size_t>(n), '\0');
    MPI_Recv(bytes.data(), n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm_, MPI_STATUS_IGNORE);
    ++received_from_[static_cast<std::size_t>(st.MPI_SOURCE)];
    bytes_received_.fetch_add(bytes.size(), std::memory_order_relaxed);
    dispatch(st.MPI_SOURCE, st.MPI_TAG, bytes);
    any = true;
  }
  return any;
}

void Comm::dispatch(int source, int tag, const std::string& bytes) {
  if (tag == kTagAbort) {
    std::lock_guard g(mutex_);
    if (!remote_failure_) remote_failure_ = bytes;
    return;
  }
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  const auto kind = detail::get_raw<std::uint8_t>(p, end);
  if (kind == kCredits) {
    const auto entries = detail::get_raw<std::uint32_t>(p, end);
    for (std::uint32_t i = 0; i < entries; ++i) {
      const auto channel = detail::get_raw<std::uint32_t>(p, end);
      const auto n = detail::get_raw<std::uint64_t>(p, end);
      OutLink& l = *out_by_channel_.at(channel);
      {
        std::lock_guard g(l.signal.mutex);
        l.credits += n;
        l.signal.dirty = true;
      }
      l.signal.cv.notify_one();
    }
    return;
  }
  const auto channel = detail::get_raw<std::uint32_t>(p, end);
  if (kind == kBroken) {
    OutLink& l = *out_by_channel_.at(channel);
    {
      std::lock_guard g(l.signal.mutex);
      l.broken = true;
      l.signal.dirty = true;
    }
    l.signal.cv.notify_one();
    return;
  }
  auto it = in_by_channel_.find(channel);
  if (it == in_by_channel_.end() || it->second->peer != source) {
    throw WireError(fmt::format("rank {}: message for channel {} from rank {}, which does not write it here", rank_, channel, source));
  }
  InLink& l = *it->second;
  {
    std::lock_guard g(l.signal.mutex);
    if (kind == kData) {
      const auto count = detail::get_raw<std::uint32_t>(p, end);
      values_received_.fetch_add(count, std::memory_order_relaxed);
      batches_received_.fetch_add(1, std::memory_order_relaxed);
      l.batches.emplace_back(p, end);
    } else if (kind == kEos) {
      l.eos = true;
    } else {
      throw WireError(fmt::format("rank {}: unknown message kind {} from rank {}", rank_, kind, source));
    }
    l.signal.dirty = true;
  }
  l.signal.cv.notify_one();
}

bool Comm::test_sends() {
  const std::size_t before = pending_.size();
  std::erase_if(pending_, [](const std::unique_ptr<Pending>& p) {
    int done = 0;
    MPI_Test(&p->request, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  return pending_.size() != before;
}

void Comm::loop() {
  using clock = std::chrono::steady_clock;
  clock::time_point last_progress = clock::now();
  bool barrier_started = false;
  MPI_Request barrier = MPI_REQUEST_NULL;
  clock::time_point last_interrupt{};
  for (;;) {
    bool done = false;
    bool failed = false;
    {
      std::lock_guard g(mutex_);
      done = local_done_;
      failed = remote_failure_.has_value();
    }
    // Read `done` before taking the posts: what the main thread posted before local_done is sent now.
    bool progress = send_posted();
    progress |= receive_arrived();
    progress |= test_sends();
    if (failed && !done && interrupt_ && clock::now() - last_interrupt >= std::chrono::milliseconds(1)) {
      interrupt_();
      last_interrupt = clock::now();
    }
    if (done && !barrier_started) {
      MPI_Ibarrier(comm_, &barrier);
      barrier_started = true;
    }
    if (barrier_started) {
      int complete = 0;
      MPI_Test(&barrier, &complete, MPI_STATUS_IGNORE);
      if (complete) break;
    }
    const auto now = clock::now();
    if (progress) {
      last_progress = now;
      continue;
    }
    // Back off by how long the rank has been idle: a reply within a round trip finds the thread spinning
    // (yielding the CPU to any runnable thread), a short lull costs 50 us of latency at most, a long
    // one 1 ms (a few hundred Iprobes a second); a post ends any sleep at once.
    const auto idle = now - last_progress;
    if (idle < std::chrono::microseconds(200)) {
      std::this_thread::yield();
      continue;
    }
    const auto wait = idle < std::chrono::milliseconds(50) ? std::chrono::microseconds(50) : std::chrono::microseconds(1000);
    std::unique_lock l(mutex_);
    wake_.wait_for(l, wait, [&] { return !outgoing_.empty() || !credits_.empty() || local_done_ != done; });
  }
  drain_at_end();
}

void Comm::drain_at_end() {
  std::vector<std::uint64_t> expected(static_cast<std::size_t>(size_), 0);
  MPI_Alltoall(sent_to_.data(), 1, MPI_UINT64_T, expected.data(), 1, MPI_UINT64_T, comm_);
  while (received_from_ != expected || !pending_.empty()) {
    const bool progress = receive_arrived() | test_sends();
    if (!progress) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace kpn::distributed
