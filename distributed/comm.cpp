#include "distributed/comm.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "distributed/wire.hpp"
#include "runtime/log.hpp"

namespace kpn::distributed {
namespace {

constexpr int kTagChannel = 1;  // DATA, EOS, CREDITS, BROKEN: in order between two ranks
constexpr int kTagAbort = 2;
constexpr int kTagProbe = 3;   // rank 0 -> the others: a round of the deadlock check
constexpr int kTagStatus = 4;  // the others -> rank 0: their answer
constexpr int kTagAlive = 5;   // liveness: sent to a peer that was sent nothing else for kAlivePeriod
constexpr int kTagGrow = 6;    // rank 0 -> a rank: Parks' growth of the full channel it reported
// How often rank 0 asks: a deadlock is reported within about three periods. While growths go on (for
// kBusyGrowing after the last one) it asks every kGrowingPeriod, so a network that needs many growths is
// not held up; a round that finds every rank quiet is followed by the next one after kGrowingPeriod too.
constexpr auto kProbePeriod = std::chrono::milliseconds(200);
constexpr auto kGrowingPeriod = std::chrono::milliseconds(20);
constexpr auto kBusyGrowing = std::chrono::seconds(2);
constexpr auto kRoundPatience = std::chrono::seconds(1);
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
  return l;
}

InLink& Comm::add_in_link(std::uint32_t channel, int writer_rank) {
  InLink& l = in_links_.emplace_back();
  l.channel = channel;
  l.peer = writer_rank;
  in_by_channel_[channel] = &l;
  return l;
}

std::vector<OutLink*> Comm::out_links() {
  std::vector<OutLink*> v;
  for (auto& l : out_links_) v.push_back(&l);
  return v;
}

std::vector<InLink*> Comm::in_links() {
  std::vector<InLink*> v;
  for (auto& l : in_links_) v.push_back(&l);
  return v;
}

void Comm::start() {
  last_sent_.assign(static_cast<std::size_t>(size_), std::chrono::steady_clock::now());
  last_heard_ = last_sent_;
  thread_ = std::thread([this] { loop(); });
}

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
  if (tag == kTagChannel) ++channel_sent_;
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
    if (!last_heard_.empty()) last_heard_[static_cast<std::size_t>(st.MPI_SOURCE)] = std::chrono::steady_clock::now();
    if (st.MPI_TAG == kTagChannel) ++channel_received_;
    bytes_received_.fetch_add(bytes.size(), std::memory_order_relaxed);
    dispatch(st.MPI_SOURCE, st.MPI_TAG, bytes);
    any = true;
  }
  return any;
}

void Comm::dispatch(int source, int tag, const std::string& bytes) {
  if (tag == kTagAlive) return;  // its arrival (the last-heard time) is all it says
  if (tag == kTagAbort) {
    std::lock_guard g(mutex_);
    if (!remote_failure_) remote_failure_ = bytes;
    return;
  }
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  if (tag == kTagGrow) {
    const auto round = detail::get_raw<std::uint64_t>(p, end);
    const auto to = detail::get_raw<std::uint64_t>(p, end);
    grow_candidate(round, to);
    return;
  }
  if (tag == kTagProbe) {
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
    isend(source, kTagStatus, std::move(reply));
    return;
  }
  if (tag == kTagStatus) {
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

void Comm::grow_candidate(std::uint64_t round, std::uint64_t to) {
  if (round != candidate_round_ || candidate_ == nullptr) return;  // cannot happen: rank 0 names this rank's last round
  const std::size_t from = candidate_->capacity();
  candidate_->grow(static_cast<std::size_t>(to));  // wakes its writer: the network goes on
  const std::uint64_t n = channels_grown_.fetch_add(1) + 1;
  // The first growth is worth a warning, the rest go to debug level (as the runtime's, deadlock_monitor.cpp).
  log().log(n == 1 ? spdlog::level::warn : spdlog::level::debug,
            "rank {}: artificial deadlock across ranks resolved: channel '{}' grown from {} to {} messages{}", rank_,
            candidate_->name(), from, to, n == 1 ? " (further resolutions are logged at debug level)" : "");
  candidate_.reset();
}

Comm::Status Comm::local_status(bool done, std::uint64_t round) {
  Status st;
  st.done = done;
  st.sent = channel_sent_;
  st.received = channel_received_;
  if (done || watch_ == nullptr) {
    st.stalled = done;  // a rank that is done never changes again; one that has no watch never says so
    return st;
  }
  {
    std::lock_guard g(mutex_);
    if (!outgoing_.empty() || !credits_.empty()) return st;  // not stalled: it has something to send
  }
  // Sends still in flight need no look here: a channel message sent and not received makes the round's
  // totals differ (and a PROBE or STATUS is no channel traffic).
  WatchSample s = watch_->sample();
  st.stalled = s.stalled;
  st.fingerprint = s.fingerprint;
  st.blocked = s.blocked;
  if (s.stalled && s.full != nullptr) {
    st.full_capacity = s.full_capacity;
    st.full_name = s.full_name;
  }
  candidate_ = st.full_capacity != 0 ? std::move(s.full) : nullptr;
  candidate_round_ = round;
  return st;
}

// Rank 0, every kProbePeriod while its run is on: a new round (its own status at once, the others' by
// STATUS); the verdict once every answer is in (on_status).
void Comm::watch_round(bool done) {
  // One rank has no agent: its own runtime finds its deadlocks (and grows channels by Parks' rule).
  if (rank_ != 0 || size_ == 1 || watch_ == nullptr || deadlock_declared_ || done) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_probe_) return;
  // A round still waiting for answers goes on (a slow rank would otherwise never finish one while rounds
  // come every 20 ms), for a second at most (a late answer is dropped: its round is over).
  const bool answered = std::all_of(statuses_.begin(), statuses_.end(), [](const auto& st) { return st.has_value(); });
  if (!answered && now - round_started_ < kRoundPatience) return;
  round_started_ = now;
  next_probe_ = now + (now - last_growth_ < kBusyGrowing ? kGrowingPeriod : kProbePeriod);
  ++round_;
  statuses_.assign(static_cast<std::size_t>(size_), std::nullopt);
  std::string probe;
  detail::put_raw(probe, round_);
  for (int r = 1; r < size_; ++r) isend(r, kTagProbe, probe);
  on_status(0, local_status(false, round_));
}

void Comm::on_status(int source, const Status& s) {
  statuses_[static_cast<std::size_t>(source)] = s;
  for (const auto& st : statuses_) {
    if (!st) return;
  }
  bool all_stalled = true;
  bool all_done = true;
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::vector<std::uint64_t> fingerprints;
  for (const auto& st : statuses_) {
    all_stalled = all_stalled && st->stalled;
    all_done = all_done && st->done;
    sent += st->sent;
    received += st->received;
    fingerprints.push_back(st->fingerprint);
  }
  // Only counts taken in the same round are compared; a message in flight makes them differ.
  const bool quiet = all_stalled && !all_done && sent == received;
  const bool deadlock = quiet && previous_all_stalled_ && fingerprints == previous_fingerprints_ && sent == previous_sent_ &&
                        received == previous_received_;
  previous_all_stalled_ = quiet;
  previous_fingerprints_ = std::move(fingerprints);
  previous_sent_ = sent;
  previous_received_ = received;
  if (quiet && !deadlock) next_probe_ = std::min(next_probe_, std::chrono::steady_clock::now() + kGrowingPeriod);  // confirm soon
  if (!deadlock) return;
  // Artificial (a writer waits on a full channel somewhere): grow the smallest such channel (comm.hpp).
  int grow_rank = -1;
  for (int r = 0; r < size_; ++r) {
    const Status& st = *statuses_[static_cast<std::size_t>(r)];
    if (st.full_capacity != 0 && (grow_rank < 0 || st.full_capacity < statuses_[static_cast<std::size_t>(grow_rank)]->full_capacity)) grow_rank = r;
  }
  std::string refused;
  if (grow_rank >= 0) {
    const Status& st = *statuses_[static_cast<std::size_t>(grow_rank)];
    const std::uint64_t to = std::min<std::uint64_t>(st.full_capacity * 2, max_capacity_);
    if (to > st.full_capacity) {
      previous_all_stalled_ = false;  // the next verdict needs two new quiet rounds
      last_growth_ = std::chrono::steady_clock::now();
      next_probe_ = last_growth_ + kGrowingPeriod;
      if (grow_rank == 0) {
        grow_candidate(round_, to);
      } else {
        std::string grow;
        detail::put_raw(grow, round_);
        detail::put_raw(grow, to);
        isend(grow_rank, kTagGrow, std::move(grow));
      }
      return;
    }
    refused = fmt::format("channel '{}' is full at capacity {} and may not grow past the maximum capacity {}", st.full_name,
                          st.full_capacity, max_capacity_);
  }
  deadlock_declared_ = true;
  std::string text = "deadlock across ranks: every process is blocked on a channel and no message is in flight";
  for (int r = 0; r < size_; ++r) {
    const Status& st = *statuses_[static_cast<std::size_t>(r)];
    text += fmt::format("; rank {}: {}", r, st.done ? "done" : st.blocked);
  }
  if (!refused.empty()) text += "; " + refused + " (raise --max-capacity)";
  {
    std::lock_guard g(mutex_);
    if (!remote_failure_) remote_failure_ = text;  // rank 0 stops too, by the same path as the others
  }
  for (int r = 1; r < size_; ++r) isend(r, kTagAbort, text);
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
    if (now - last_sent_[i] >= kAlivePeriod) isend(r, kTagAlive, std::string());
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
    // Read `done` before taking the posts: what the main thread posted before local_done is sent now.
    bool progress = send_posted();
    progress |= receive_arrived();
    progress |= test_sends();
    watch_round(done);
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
    if (!lost && check_peers(now)) continue;  // interrupt at once (above)
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
