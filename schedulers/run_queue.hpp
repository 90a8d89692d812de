#pragma once
// A worker's run-queue, as in the Nornir paper ("A simple improvement of the work-stealing scheduling
// algorithm"): the owner pushes and pops at the front, thieves take from the back, and (WS-LAST) other
// workers push at the front. A lock guards it, because WS-LAST inserts at the front of
// another worker's queue, which the lock-free deques of the literature do not allow. Storage is a
// ProcessRing (process_ring.hpp).
//
// Fresh processes (handoff only: the Nornir policies never queue one, so their queues behave as before). A
// process that has never run waits in a second ring, behind every process that has run: a worker resumes
// what it has started before it starts more. So fewer stacks are in use at once, and a value moving down a
// chain of parked processes is not queued behind the starts of thousands of others that would only park.
// Fairness: after config::kFreshAfter pops from the first ring in a row while fresh processes wait, the
// next pop takes a fresh one, so processes that keep waking each other cannot keep a fresh one from
// starting. The owner's pops and a thief's batch take the started ones first, then the fresh ones.
// The owner starts fresh processes from the front of their ring (the order they were queued in: the
// initial network's declaration order, spawns in order) or, once its policy has turned the order around
// (turn_fresh_order: handoff's futile starts), from the back. A thief's batch always takes the front.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "runtime/config.hpp"
#include "runtime/spin_lock.hpp"
#include "schedulers/process_ring.hpp"

namespace kpn {

class Process;

class RunQueue {
 public:
  // True if the queue was empty before (under the lock: exact).
  bool push_front(Process* p) {
    std::lock_guard g(lock_);
    const bool was_empty = ring_.size() == 0;
    ring_.push_front(p);
    publish_size();
    return was_empty;
  }
  // True if the queue was empty before (under the lock: exact).
  bool push_back(Process* p) {
    std::lock_guard g(lock_);
    const bool was_empty = ring_.size() == 0;
    ring_.push_back(p);
    publish_size();
    return was_empty;
  }
  // True if the queue was empty before (under the lock: exact). `p` has never run.
  bool push_back_fresh(Process* p) {
    std::lock_guard g(lock_);
    const bool was_empty = size() == 0;
    fresh_.push_back(p);
    publish_size();
    return was_empty;
  }
  // The oldest process that has run, or nullptr: never a fresh one.
  Process* pop_front_started() {
    std::lock_guard g(lock_);
    if (ring_.size() == 0) return nullptr;
    Process* p = ring_.pop_front();
    publish_size();
    return p;
  }
  // Puts back a fresh process just popped, where the owner's next start takes it again (a start put off).
  void put_back_fresh(Process* p) {
    std::lock_guard g(lock_);
    if (fresh_from_back_) {
      fresh_.push_back(p);
    } else {
      fresh_.push_front(p);
    }
    publish_size();
  }
  // The owner's fresh starts come from the other end of the fresh ring from now on.
  void turn_fresh_order() {
    std::lock_guard g(lock_);
    fresh_from_back_ = !fresh_from_back_;
  }
  Process* pop_front() {
    std::lock_guard g(lock_);
    if (size() == 0) return nullptr;
    Process* p = take_front();
    publish_size();
    return p;
  }
  // pop_front without the lock when the size hint says empty: a direct switch's look (Scheduler::pick_local),
  // which must not wait on a lock. May miss a process being pushed at this moment; whoever pushed it has
  // made it visible to the worker's loop, whose pick_next looks again under the lock.
  Process* try_pop_front() { return size_hint() != 0 ? pop_front() : nullptr; }
  Process* pop_back() {
    std::lock_guard g(lock_);
    if (size() == 0) return nullptr;
    Process* p = fresh_.size() != 0 ? fresh_.pop_back() : ring_.pop_back();
    publish_size();
    return p;
  }
  // Takes the older half of the entries (at least one, at most `max`) from the front into `out`, under one
  // lock: a thief's batch (Go's runqgrab). Returns how many.
  std::size_t pop_front_half(Process** out, std::size_t max) {
    return pop_preferred_half(out, max, 0, [](const Process*) { return false; });
  }
  // A thief's batch that prefers some entries: those among the oldest `scan` for which `preferred` holds,
  // oldest first, up to half of the entries (at least one, at most `max`); when none of them is preferred,
  // the older half as pop_front_half. Under one lock, which `preferred` runs inside: it must be cheap and
  // must not take the lock. Returns how many.
  template <class Preferred>
  std::size_t pop_preferred_half(Process** out, std::size_t max, std::size_t scan, Preferred preferred) {
    std::lock_guard g(lock_);
    std::size_t limit = size() - size() / 2;
    if (limit > max) limit = max;
    std::size_t n = ring_.size() < scan ? ring_.size() : scan;
    std::size_t got = 0;
    for (std::size_t i = 0; i < n && got < limit;) {
      if (preferred(ring_.at(i))) {
        out[got++] = ring_.remove_at(i);
        --n;
      } else {
        ++i;
      }
    }
    if (got == 0) {
      // The older half in the order the owner would take them: the started ones, then the fresh ones.
      for (; got < limit && ring_.size() != 0; ++got) out[got] = ring_.pop_front();
      for (; got < limit; ++got) out[got] = fresh_.pop_front();
    }
    publish_size();
    return got;
  }
  // Forgets every entry (a new run begins; the old entries belonged to the last run).
  void clear() {
    std::lock_guard g(lock_);
    ring_.clear();
    fresh_.clear();
    fresh_after_ = 0;
    fresh_from_back_ = false;
    publish_size();
  }
  // A racy hint for policies and reports; exact only while the queue is quiescent.
  std::size_t size_hint() const noexcept { return approx_size_.load(std::memory_order_relaxed); }
  // The word size_hint reads, for a sleeper to watch (IdleWorkers::watch): written under the lock by every
  // push and pop, so a push into an empty queue makes it non-zero before the pusher's later fences.
  const std::atomic<std::size_t>& size_word() const noexcept { return approx_size_; }

  // Keeps `bit` of `*word` set exactly while the queue holds an entry, for a policy's summary of which
  // queues have work (handoff). Set once, while the queue is empty and before any other thread uses it.
  // The bit is changed under the queue's lock, so its last change is always the last critical section's
  // verdict; the fetch_or that publishes a push is sequenced before the pusher's later fences, as the
  // size is (idle_workers.hpp's protocol reads either).
  void track_occupancy(std::atomic<std::uint64_t>* word, std::uint64_t bit) noexcept {
    occupancy_ = word;
    bit_ = bit;
  }

 private:
  std::size_t size() const noexcept { return ring_.size() + fresh_.size(); }
  // Requires size() > 0.
  Process* take_front() noexcept {
    if (fresh_.size() != 0 && (ring_.size() == 0 || ++fresh_after_ > config::kFreshAfter)) {
      fresh_after_ = 0;
      return fresh_from_back_ ? fresh_.pop_back() : fresh_.pop_front();
    }
    return ring_.pop_front();
  }
  void publish_size() noexcept {
    const std::size_t now = size();
    if (occupancy_ != nullptr && (now == 0) != (approx_size_.load(std::memory_order_relaxed) == 0)) {
      if (now != 0) {
        occupancy_->fetch_or(bit_, std::memory_order_relaxed);
      } else {
        occupancy_->fetch_and(~bit_, std::memory_order_relaxed);
      }
    }
    approx_size_.store(now, std::memory_order_relaxed);
  }

  // The first cache line holds what every pop and push writes and a sleeper watches (the lock, the ring,
  // the size word). The fresh ring comes after it: every pop and push reads its size, but only pushes and
  // pops of fresh processes write it, so in a run's steady state its line stays shared in every cache.
  SpinLock lock_;
  ProcessRing ring_;  // guarded by lock_: processes that have run
  std::atomic<std::size_t> approx_size_{0};
  std::atomic<std::uint64_t>* occupancy_ = nullptr;  // track_occupancy
  std::uint64_t bit_ = 0;
  ProcessRing fresh_;  // guarded by lock_: processes that have not (push_back_fresh)
  unsigned fresh_after_ = 0;  // guarded by lock_: pops from ring_ since the last fresh one while both held some
  bool fresh_from_back_ = false;  // guarded by lock_: the owner's starts take the back of fresh_ (turn_fresh_order)
};

}  // namespace kpn
