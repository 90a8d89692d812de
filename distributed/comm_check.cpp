// The check across ranks (comm.hpp): rank 0's rounds of PROBE and STATUS, the verdict of two equal quiet
// rounds, and Parks' growth of the smallest full channel of an artificial deadlock across ranks.
#include <algorithm>
#include <chrono>
#include <string>

#include <fmt/format.h>

#include "distributed/comm.hpp"
#include "distributed/comm_tags.hpp"
#include "distributed/wire.hpp"
#include "runtime/log.hpp"
#include "runtime/this_process.hpp"

namespace kpn::distributed {
namespace {

using namespace tags;

// How often rank 0 asks: a deadlock is reported within about three periods. While growths go on (for
// kBusyGrowing after the last one) it asks every kGrowingPeriod, so a network that needs many growths is
// not held up; a round that finds every rank quiet is followed by the next one after kGrowingPeriod too.
constexpr auto kProbePeriod = std::chrono::milliseconds(200);
constexpr auto kGrowingPeriod = std::chrono::milliseconds(20);
constexpr auto kBusyGrowing = std::chrono::seconds(2);
constexpr auto kRoundPatience = std::chrono::seconds(1);

}  // namespace

void Comm::grow_candidate(std::uint64_t round, std::uint64_t to) {
  if (round != candidate_round_ || candidate_ == nullptr) return;  // cannot happen: rank 0 names this rank's last round
  growth_ = std::move(candidate_);
  growth_to_ = to;
  // A growth readies the channel's writer, through the runtime's WakeList: safe from a process of the run,
  // not from this thread (runtime/external_wakers.hpp). So the link poller applies it at its next wake-up
  // (assist), unless this is the poller or no stream is open any more (then no poller either: the corner
  // where this thread applies it itself).
  if (kpn::in_process() || links_over()) {
    apply_growth();
  } else {
    growth_pending_.store(true, std::memory_order_release);
  }
}

void Comm::apply_growth() {
  if (growth_ == nullptr) return;
  const std::size_t from = growth_->capacity();
  growth_->grow(static_cast<std::size_t>(growth_to_));  // wakes its writer: the network goes on
  const std::uint64_t n = channels_grown_.fetch_add(1) + 1;
  // The first growth is worth a warning, the rest go to debug level (as the runtime's, deadlock_monitor.cpp).
  log().log(n == 1 ? spdlog::level::warn : spdlog::level::debug,
            "rank {}: artificial deadlock across ranks resolved: channel '{}' grown from {} to {} messages{}", rank_,
            growth_->name(), from, growth_to_, n == 1 ? " (further resolutions are logged at debug level)" : "");
  growth_.reset();
}

Comm::Status Comm::local_status(bool done, std::uint64_t round) {
  Status st;
  st.done = done;
  st.sent = channel_sent_;
  st.received = channel_received_;
  // Not stalled while it has something to send: a rank that is done may still owe a BROKEN (a reader that
  // ended before its stream did) or credits, which a writer elsewhere waits for.
  {
    std::lock_guard g(mutex_);
    if (!outgoing_.empty() || !ready_.empty() || !credits_.empty()) return st;
  }
  if (done || watch_ == nullptr) {
    st.stalled = done;  // a rank that is done never changes again; one that has no watch never says so
    return st;
  }
  // A growth rank 0 ordered that the link poller has not applied yet (grow_candidate) will wake a writer.
  if (growth_pending_.load(std::memory_order_acquire)) return st;
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
  // One rank has no links: its own runtime finds its deadlocks (and grows channels by Parks' rule).
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
  for (int r = 1; r < size_; ++r) isend(r, kProbe, probe);
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
        isend(grow_rank, kGrow, std::move(grow));
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
  for (int r = 1; r < size_; ++r) isend(r, kAbort, text);
}

}  // namespace kpn::distributed
