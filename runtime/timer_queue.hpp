#pragma once
// The run's timers: every process in a timed wait (kpn::sleep_for, a channel's read_for / write_for) has one
// node here, ordered by deadline (a binary min-heap, ties in insertion order). One queue per run; the lock
// is its own (a SpinLock: a critical section is a heap sift, and nobody switches while holding it).
//
// Who touches what:
// - a node is inserted by its process, before it parks (timed_park, blocking.cpp), and removed by the same
//   process once it runs again, whatever woke it; or popped by a firer (below). Both under the lock, so a
//   node's heap index says, under the lock, whether it is still queued;
// - `earliest_` mirrors the top's deadline (kNone when empty). It is written under the lock and read
//   without it: a worker's scheduling point does one relaxed load and reads the clock only when a timer
//   exists (due()); a sleeping worker reads it to choose its futex timeout (idle_workers.hpp).
//
// Firing (fire_due, timers.cpp): any worker, between two processes, pops due nodes. Firing a node means
// taking its process out of the waiter slot it parked in, under the lock it parked under (a channel's, or
// the process's own for a plain sleep): the one rule of blocking.hpp, that whoever takes a waiter out of its
// slot under the lock owns its wake-up, decides the race between the timer and a channel's waker. If the
// slot no longer holds the process, a waker took it first and will ready it; the firer only drops the node.
// The firer only try_locks the park lock while it holds the queue's lock (the parking process holds its
// park lock while it inserts, so the order is park lock -> queue lock); if that fails, the node stays and
// is tried again at the next scheduling point (the lock is held for a few instructions, or until the
// parking process is off its stack).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "runtime/spin_lock.hpp"
#include "runtime/steady_time.hpp"

namespace kpn {

class BusyWaitMutex;
class Process;

// One timed wait, embedded in its process (a process waits for one thing at a time).
struct TimerNode {
  static constexpr std::size_t kNotQueued = std::numeric_limits<std::size_t>::max();
  std::int64_t deadline_ns = 0;
  std::uint64_t seq = 0;                 // insertion order, for ties
  std::size_t index = kNotQueued;        // position in the heap; guarded by the queue's lock
  Process* process = nullptr;
  BusyWaitMutex* park_lock = nullptr;    // the lock the process parked under
  Process** slot = nullptr;              // the waiter slot it published itself in, guarded by park_lock
};

class TimerQueue {
 public:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();

  TimerQueue() = default;
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  // The earliest deadline (steady_ns), or kNone. Relaxed: a stale value only delays or advances one look.
  std::int64_t earliest() const noexcept { return earliest_.load(std::memory_order_relaxed); }
  const std::atomic<std::int64_t>& earliest_word() const noexcept { return earliest_; }
  // The scheduling point's test: no clock read and no lock while no timer exists.
  bool due() const noexcept {
    const std::int64_t e = earliest();
    return e != kNone && e <= steady_ns();
  }

  // Queues `node` (not queued) for `deadline_ns`. Returns true if it became the earliest.
  bool insert(TimerNode& node, std::int64_t deadline_ns);
  // Takes `node` out if it is still queued (its process runs again).
  void remove(TimerNode& node);
  // Pops, in deadline order, the nodes due at `now_ns` for which `fire(node)` returns true; stops at the
  // first for which it returns false (its lock was busy: it stays queued) or at the first not yet due.
  // `fire` runs under the queue's lock and must not take it again.
  template <class Fire>
  void pop_due(std::int64_t now_ns, Fire fire);

  std::uint64_t fired() const noexcept { return fired_.load(std::memory_order_relaxed); }

 private:
  bool before(const TimerNode* a, const TimerNode* b) const noexcept {
    return a->deadline_ns != b->deadline_ns ? a->deadline_ns < b->deadline_ns : a->seq < b->seq;
  }
  void place(std::size_t i, TimerNode* n) noexcept {
    heap_[i] = n;
    n->index = i;
  }
  void sift_up(std::size_t i) noexcept;
  void sift_down(std::size_t i) noexcept;
  void erase_at(std::size_t i) noexcept;
  void publish_earliest() noexcept {
    earliest_.store(heap_.empty() ? kNone : heap_.front()->deadline_ns, std::memory_order_relaxed);
  }

  SpinLock lock_;
  std::vector<TimerNode*> heap_;  // guarded by lock_
  std::uint64_t next_seq_ = 0;    // guarded by lock_
  alignas(64) std::atomic<std::int64_t> earliest_{kNone};
  std::atomic<std::uint64_t> fired_{0};  // written under lock_
};

template <class Fire>
void TimerQueue::pop_due(std::int64_t now_ns, Fire fire) {
  std::lock_guard g(lock_);
  while (!heap_.empty() && heap_.front()->deadline_ns <= now_ns) {
    TimerNode* n = heap_.front();
    if (!fire(*n)) break;
    erase_at(0);
    fired_.store(fired_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  publish_earliest();
}

}  // namespace kpn
