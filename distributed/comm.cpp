#include "distributed/comm.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "distributed/comm_tags.hpp"
#include "distributed/wire.hpp"
#include "runtime/log.hpp"

namespace kpn::distributed {
namespace {

using namespace tags;

// Liveness (comm.hpp): a peer hears from this rank at least this often while the thread runs ...
constexpr auto kAlivePeriod = std::chrono::milliseconds(100);
// ... and, once this rank was stopped by a signal, a peer silent this long is lost (7 periods: a live
// rank's thread that misses that many turns on a loaded machine is rare, and mpirun's SIGKILL comes 1 s
// after its SIGTERM).
constexpr auto kAfterSignal = std::chrono::milliseconds(700);

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

enum Kind : std::uint8_t { kData = 1, kEos = 2, kCredits = 3, kBroken = 4 };

std::string header(Kind kind, std::uint32_t channel) {
  std::string out;
  detail::put_raw(out, static_cast<std::uint8_t>(kind));
  detail::put_raw(out, channel);
  return out;
}

}  // namespace

struct Comm::Pending {
  int dest = 0;
  std::string bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

Comm::Comm(int rank, int size) : rank_(rank), size_(size), sent_to_(size, 0), received_from_(size, 0) {
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  // An error of a send to a dead peer (TCP, for one) comes back as a code: that peer is lost (comm.hpp),
  // where MPI's default handler would abort this rank without naming it.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
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
  links_open_.fetch_add(1, std::memory_order_relaxed);
  return l;
}

InLink& Comm::add_in_link(std::uint32_t channel, int writer_rank) {
  InLink& l = in_links_.emplace_back();
  l.channel = channel;
  l.peer = writer_rank;
  in_by_channel_[channel] = &l;
  links_open_.fetch_add(1, std::memory_order_relaxed);
  return l;
}

std::vector<OutLink*> Comm::out_links() {
  std::vector<OutLink*> v;
  for (auto& l : out_links_) v.push_back(&l);
  return v;
}

void Comm::start() {
  last_sent_.assign(static_cast<std::size_t>(size_), std::chrono::steady_clock::now());
  last_heard_ = last_sent_;
  thread_ = std::thread([this] { loop(); });
}

void Comm::post_ready(OutLink& link) {
  // Already queued: the thread's look at the end is still to come, and will see this (flush).
  if (link.queued.exchange(true, std::memory_order_seq_cst)) return;
  {
    std::lock_guard g(mutex_);
    ready_.push_back(&link);
  }
  wake_.notify_one();
}

bool Comm::try_take_turn() {
  if (turn_.exchange(true, std::memory_order_acquire)) return false;
  last_turn_ns_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  return true;
}

Comm::Assist Comm::assist(std::chrono::nanoseconds stale) {
  const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
  const bool growth = growth_pending_.load(std::memory_order_acquire);
  if (!growth && now - last_turn_ns_.load(std::memory_order_relaxed) < stale.count()) return Assist::Recent;
  const Turn turn(*this, std::try_to_lock);
  if (!turn.held) return Assist::Recent;
  if (growth_pending_.exchange(false, std::memory_order_acq_rel)) apply_growth();
  bool progress = send_posted();
  progress |= receive_arrived();
  progress |= test_sends();
  return progress ? Assist::Moved : Assist::Idle;
}

// The thread's look at a writer's end: sends what is unsent (batches of at most kMaxBatch), then EOS once
// the stream is over. No message is left behind: `queued` is cleared before the end is looked at, and a
// writer sets it after its message is in (post_ready). Either the writer's store comes first in queued's
// modification order (then this look, later than the clear, takes the lock after the writer released it
// and finds the message), or the writer's exchange reads this clear's false (or a later writer's true,
// whose link is queued again) and queues the link again.
void Comm::flush(OutLink& link) {
  // Once the counts are exchanged (drain_at_end) nothing may be sent; every end was flushed before: the
  // run had returned, so each writer's end was closed and queued, before this rank entered the barrier.
  if (link.eos_sent || ending_) return;
  link.queued.store(false, std::memory_order_seq_cst);
  for (;;) {
    std::string bytes = header(kData, link.channel);
    const std::size_t at = bytes.size();
    detail::put_raw(bytes, std::uint32_t{0});
    const std::uint32_t count = link.source->take_unsent(bytes, kMaxBatch);
    if (count == 0) break;
    std::memcpy(bytes.data() + at, &count, sizeof count);
    values_sent_.fetch_add(count, std::memory_order_relaxed);
    batches_sent_.fetch_add(1, std::memory_order_relaxed);
    isend(link.peer, kChannel, std::move(bytes));
  }
  if (!link.source->over()) return;
  control_sent_.fetch_add(1, std::memory_order_relaxed);
  isend(link.peer, kChannel, header(kEos, link.channel));
  link.eos_sent = true;
  link_over();
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
    outgoing_.push_back({link.peer, kChannel, header(kBroken, link.channel)});
  }
  wake_.notify_one();
}

void Comm::post_abort(const std::string& text) {
  {
    std::lock_guard g(mutex_);
    for (int r = 0; r < size_; ++r) {
      if (r != rank_) outgoing_.push_back({r, kAbort, text});
    }
  }
  wake_.notify_one();
}

std::optional<std::string> Comm::remote_failure() const {
  std::lock_guard g(mutex_);
  return remote_failure_;
}

std::optional<std::string> Comm::lost_peer() const {
  std::lock_guard g(mutex_);
  return lost_;
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
  s.channels_grown = channels_grown_.load();
  return s;
}

void Comm::isend(int dest, int tag, std::string bytes) {
  auto p = std::make_unique<Pending>();  // never moves: MPI holds a pointer into its buffer until done
  p->dest = dest;
  p->bytes = std::move(bytes);
  const int rc = MPI_Isend(p->bytes.data(), static_cast<int>(p->bytes.size()), MPI_BYTE, dest, tag, comm_, &p->request);
  if (rc != MPI_SUCCESS) {
    lose(dest, "sending to it failed: " + mpi_error_text(rc));
    return;
  }
  ++sent_to_[static_cast<std::size_t>(dest)];
  if (!last_sent_.empty()) last_sent_[static_cast<std::size_t>(dest)] = std::chrono::steady_clock::now();
  if (tag == kChannel) ++channel_sent_;
  bytes_sent_.fetch_add(p->bytes.size(), std::memory_order_relaxed);
  pending_.push_back(std::move(p));
}

bool Comm::send_posted() {
  std::vector<Outgoing> out;
  std::vector<OutLink*> ready;
  std::map<std::uint32_t, std::uint64_t> credits;
  {
    std::lock_guard g(mutex_);
    out.swap(outgoing_);
    ready.swap(ready_);
    credits.swap(credits_);
  }
  for (OutLink* l : ready) flush(*l);
  for (auto& o : out) {
    if (o.tag != kChannel || static_cast<std::uint8_t>(o.bytes[0]) != kData) control_sent_.fetch_add(1, std::memory_order_relaxed);
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
    isend(peer, kChannel, std::move(bytes));
  }
  return !out.empty() || !ready.empty() || !credits.empty();
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
    if (!last_heard_.empty()) last_heard_[static_cast<std::size_t>(st.MPI_SOURCE)] = std::chrono::steady_clock::now();
    if (st.MPI_TAG == kChannel) ++channel_received_;
    bytes_received_.fetch_add(bytes.size(), std::memory_order_relaxed);
    dispatch(st.MPI_SOURCE, st.MPI_TAG, bytes);
    any = true;
  }
  return any;
}

void Comm::dispatch(int source, int tag, const std::string& bytes) {
  if (tag == kAlive) return;  // its arrival (the last-heard time) is all it says
  if (tag == kAbort) {
    std::lock_guard g(mutex_);
    if (!remote_failure_) remote_failure_ = bytes;
    return;
  }
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  if (tag == kGrow) {
    const auto round = detail::get_raw<std::uint64_t>(p, end);
    const auto to = detail::get_raw<std::uint64_t>(p, end);
    grow_candidate(round, to);
    return;
  }
  if (tag == kProbe) {
    // After the counts are exchanged nothing may be sent: a STATUS then would arrive uncounted (and its
    // round is over anyway, since rank 0 stopped probing before it entered the barrier).
    if (ending_) return;
    const auto round = detail::get_raw<std::uint64_t>(p, end);
    bool done = false;
    {
      std::lock_guard g(mutex_);
      done = local_done_;
    }
    const Status st = local_status(done, round);
    std::string reply;
    detail::put_raw(reply, round);
    detail::put_raw(reply, static_cast<std::uint8_t>(st.stalled));
    detail::put_raw(reply, static_cast<std::uint8_t>(st.done));
    detail::put_raw(reply, st.sent);
    detail::put_raw(reply, st.received);
    detail::put_raw(reply, st.fingerprint);
    detail::put_raw(reply, st.full_capacity);
    detail::put_raw(reply, static_cast<std::uint32_t>(st.full_name.size()));
    reply += st.full_name;
    reply += st.blocked;
    isend(source, kStatus, std::move(reply));
    return;
  }
  if (tag == kStatus) {
    const auto round = detail::get_raw<std::uint64_t>(p, end);
    if (round != round_) return;  // an answer to a round that is over
    Status st;
    st.stalled = detail::get_raw<std::uint8_t>(p, end) != 0;
    st.done = detail::get_raw<std::uint8_t>(p, end) != 0;
    st.sent = detail::get_raw<std::uint64_t>(p, end);
    st.received = detail::get_raw<std::uint64_t>(p, end);
    st.fingerprint = detail::get_raw<std::uint64_t>(p, end);
    st.full_capacity = detail::get_raw<std::uint64_t>(p, end);
    const auto name_size = detail::get_raw<std::uint32_t>(p, end);
    if (static_cast<std::size_t>(end - p) < name_size) throw WireError(fmt::format("rank {}: a short STATUS from rank {}", rank_, source));
    st.full_name.assign(p, p + name_size);
    p += name_size;
    st.blocked.assign(p, end);
    on_status(source, st);
    return;
  }
  const auto kind = detail::get_raw<std::uint8_t>(p, end);
  if (kind == kCredits) {
    const auto entries = detail::get_raw<std::uint32_t>(p, end);
    for (std::uint32_t i = 0; i < entries; ++i) {
      const auto channel = detail::get_raw<std::uint32_t>(p, end);
      const auto n = detail::get_raw<std::uint64_t>(p, end);
      out_by_channel_.at(channel)->source->acknowledge(n, *wakes_);
    }
    return;
  }
  const auto channel = detail::get_raw<std::uint32_t>(p, end);
  if (kind == kBroken) {
    OutLink& l = *out_by_channel_.at(channel);
    l.source->break_remote(*wakes_);
    flush(l);  // what was unsent is dropped: a closed end is over now
    return;
  }
  auto it = in_by_channel_.find(channel);
  if (it == in_by_channel_.end() || it->second->peer != source) {
    throw WireError(fmt::format("rank {}: message for channel {} from rank {}, which does not write it here", rank_, channel, source));
  }
  InLink& l = *it->second;
  if (kind == kData) {
    const auto count = detail::get_raw<std::uint32_t>(p, end);
    values_received_.fetch_add(count, std::memory_order_relaxed);
    batches_received_.fetch_add(1, std::memory_order_relaxed);
    l.sink->deliver(p, end, *wakes_);
  } else if (kind == kEos && !l.eos_received) {
    l.sink->end_of_stream(*wakes_);
    l.eos_received = true;
    link_over();
  } else {
    throw WireError(fmt::format("rank {}: unknown message kind {} from rank {}", rank_, kind, source));
  }
}

bool Comm::test_sends() {
  const std::size_t before = pending_.size();
  std::erase_if(pending_, [this](const std::unique_ptr<Pending>& p) {
    int done = 0;
    const int rc = MPI_Test(&p->request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      lose(p->dest, "a send to it failed: " + mpi_error_text(rc));
      return true;
    }
    return done != 0;
  });
  return pending_.size() != before;
}





void Comm::lose(int peer, const std::string& why) {
  std::lock_guard g(mutex_);
  if (lost_) return;
  lost_ = fmt::format("rank {} stopped answering (killed, crashed or stopped): {}", peer, why);
  // The first failure wins the run's message; the lost rank is named by lost_peer() in any case.
  if (!remote_failure_) remote_failure_ = lost_;
}

bool Comm::check_peers(std::chrono::steady_clock::time_point now) {
  const auto timeout = hurried_.load() ? std::min<std::chrono::milliseconds>(peer_timeout_, kAfterSignal) : peer_timeout_;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    const auto i = static_cast<std::size_t>(r);
    if (now - last_sent_[i] >= kAlivePeriod) isend(r, kAlive, std::string());
    if (now - last_heard_[i] > timeout) {
      lose(r, fmt::format("nothing heard from it for {:.1f} s",
                          std::chrono::duration<double>(now - last_heard_[i]).count()));
    }
  }
  std::lock_guard g(mutex_);
  return lost_.has_value();
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
    bool lost = false;
    {
      std::lock_guard g(mutex_);
      done = local_done_;
      failed = remote_failure_.has_value();
      lost = lost_.has_value();
    }
    // A lost peer never enters the barrier: once this rank's run has returned, leave without the end's
    // exchange (comm.hpp); the runner ends the job.
    if (lost && done) return;
    bool progress = false;
    int complete = 0;
    bool peer_lost = false;
    const auto now = clock::now();
    {
      const Turn turn(*this);
      // Read `done` before taking the posts: what the main thread posted before local_done is sent now.
      progress = send_posted();
      progress |= receive_arrived();
      progress |= test_sends();
      watch_round(done);
      if (done && !barrier_started) {
        MPI_Ibarrier(comm_, &barrier);
        barrier_started = true;
      }
      if (barrier_started) MPI_Test(&barrier, &complete, MPI_STATUS_IGNORE);
      if (!complete && !lost) peer_lost = check_peers(now);
    }
    if (complete) break;
    if (failed && !done && interrupt_ && clock::now() - last_interrupt >= std::chrono::milliseconds(1)) {
      interrupt_();
      last_interrupt = clock::now();
    }
    if (peer_lost) continue;  // interrupt at once (above)
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
  const Turn turn(*this);  // for good: the run is over, no process assists any more
  ending_ = true;
  std::vector<std::uint64_t> expected(static_cast<std::size_t>(size_), 0);
  MPI_Alltoall(sent_to_.data(), 1, MPI_UINT64_T, expected.data(), 1, MPI_UINT64_T, comm_);
  auto missing = [&] {
    for (std::size_t r = 0; r < expected.size(); ++r) {
      if (received_from_[r] < expected[r]) return true;
    }
    return false;
  };
  while (missing() || !pending_.empty()) {
    // Both, whatever the first found: receiving and completing sends are independent progress.
    const bool arrived = receive_arrived();
    const bool sent = test_sends();
    const bool progress = arrived || sent;
    if (!progress) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace kpn::distributed
