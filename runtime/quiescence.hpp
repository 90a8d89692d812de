#pragma once
// Termination and deadlock detection by counting, without polling and without false positives:
//   live   = processes that have not finished (counted by the process table's shards, process_table.hpp,
//            each under its own lock, and read by summing them);
//   active = processes READY or RUNNING, or BLOCKED in a timed wait (a sleep, a channel wait with a
//            deadline: its timer will ready it, blocking.hpp's park_until).
//            A process in a blocking call (blocking_call.hpp) counts like a timed waiter: the pool thread
//            that runs its call readies it when the call returns.
// active is raised before a process can become runnable (spawn, unblock: both done by a running process,
// which itself counts as active, or by the runtime before the workers start) and lowered only after a
// process has left the CPU (parked or exited). So active reaches 0 exactly when nothing runs and nothing
// is queued, and then nothing can change any more (only a running process wakes or spawns others; the
// deadlock monitor, which may also wake a writer, serialises with the listener, deadlock_monitor.hpp).
// A worker may owe the decrements of parks and exits on it and settle them against its next wake-ups and
// spawns (Worker::owe_deactivation): the count then exceeds the true one by the debts until the worker runs
// out of work and pays, so it still reaches 0 exactly when nothing runs, nothing is queued and nothing is owed.
// The worker whose decrement reaches 0 calls the listener: live == 0 means the network finished (a
// process's exit lowers live before its worker's decrement of active, owed or not, releases it, and the
// last decrement acquires every earlier one: the listener sees every exit);
// otherwise every remaining process is blocked without a timer. So a network whose processes sleep, or
// wait for a sleeper, is never called deadlocked; a cycle of untimed waits beside sleepers is the local
// scan's to find (deadlock_monitor.hpp skips timed waiters).

#include <atomic>
#include <cstdint>

namespace kpn {

class QuiescenceListener {
 public:
  // Nothing runs and nothing is queued. Called on the worker whose decrement reached 0.
  virtual void on_quiescent() = 0;

 protected:
  ~QuiescenceListener() = default;
};

class Quiescence {
 public:
  void set_listener(QuiescenceListener* l) noexcept { listener_ = l; }

  // A process was spawned or woken: it may run.
  void readied() noexcept { active_.fetch_add(1, std::memory_order_relaxed); }
  // A process parked (untimed) or exited.
  void deactivated() { deactivate(); }
  // `n` at once (a worker paying what it owed: Worker::owe_deactivation).
  void deactivated_many(std::int64_t n) { deactivate(n); }

  std::int64_t active() const noexcept { return active_.load(std::memory_order_acquire); }

 private:
  void deactivate(std::int64_t n = 1) {
    if (active_.fetch_sub(n, std::memory_order_acq_rel) == n && listener_ != nullptr) listener_->on_quiescent();
  }

  QuiescenceListener* listener_ = nullptr;  // set before the workers start
  alignas(64) std::atomic<std::int64_t> active_{0};
};

}  // namespace kpn
