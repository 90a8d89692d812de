#pragma once
// global: one run-queue shared by every worker, the first baseline of "Zorro: a distributed thread-pool
// with stealing" (seed 003, its "Global Pool"). Every process that becomes ready (the initial network,
// a spawned process, an unblocked one, one that yields) goes to the back of the one queue; every worker
// takes the next process from its front. Nothing is ever placed on a worker, so the load is balanced by
// construction, and every push and pop takes the same lock: the contention the per-worker and stealing
// policies exist to avoid. `stats()` measures it.
//
// Idle workers sleep (runtime/idle_workers.hpp), as a thread pool's workers wait on its condition
// variable. Work appears in exactly one place, GlobalScheduler::push. A spawn or an unblock (enqueue) then
// calls notify_work after publishing the new size: if nobody is already on the way to the queue (a
// searcher) and somebody sleeps, one sleeper wakes, as a searcher. A yield does so only when the queue held
// other processes: into an empty queue, the yielding worker itself takes the process right back. An idle worker waits in exactly one place, on_idle, until the queue's
// size is non-zero. A searcher that takes a process stops searching and, if it left more behind, wakes the
// next sleeper (stop_searching(found_more)): a burst of pushes wakes workers one after the other, each for
// work that is there, never all at once. Before session 27 they yielded their CPU (sched_yield), which on
// a machine shared with busy programs gave it to them for a whole time slice.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/export.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/spin_lock.hpp"
#include "schedulers/process_ring.hpp"

namespace kpn {

class IdleWorkers;

class KPN_EXPORT GlobalScheduler final : public Scheduler {
 public:
  std::string_view name() const noexcept override { return "global"; }
  void start(SchedulerContext& context) override;
  void on_spawn(Process& p, Worker* spawner) override;
  void on_unblock(Process& p, Worker* waker) override;
  void on_yield(Process& p, Worker& w) override;
  Process* pick_next(Worker& w) override;
  void on_idle(Worker& w) override;
  // pushes, pops, empty polls, lock acquisitions, those that found the lock taken, the longest queue, and
  // the idle workers' sleeps, wakeups and futex_wakes.
  std::vector<std::pair<std::string, double>> stats() const override;

 private:
  // The queue's counters; guarded by lock_ like the queue (so they cost no extra atomic), read by stats()
  // after every worker has stopped.
  struct Counters {
    std::uint64_t pushes = 0;
    std::uint64_t pops = 0;          // processes handed out
    std::uint64_t empty_polls = 0;   // pick_next found the queue empty
    std::uint64_t acquisitions = 0;  // lock acquisitions, every push and every poll
    std::uint64_t contended = 0;     // acquisitions that found the lock held by another worker
    std::uint64_t max_length = 0;
  };

  // The one place where work appears (see the header comment): push, then wake a sleeper.
  void enqueue(Process& p);
  // Pushes `p` at the back under the lock; returns the queue's length before the push.
  std::size_t push(Process& p);
  // Takes lock_, counting whether it was free.
  void acquire() noexcept;

  IdleWorkers* idle_ = nullptr;  // the run's, set by start()
  std::size_t workers_ = 0;      // the run's worker count, set by start()

  // The lock and the queue it guards share a cache line on purpose: whoever holds the lock touches both.
  alignas(64) SpinLock lock_;
  // Guarded by lock_: FIFO, push at the back, pop at the front.
  ProcessRing queue_;
  Counters counters_;
  // queue_.size(), readable without the lock: what a sleeping worker's last look reads (on_idle's has_work),
  // and what a searcher that found work reads to decide whether to wake the next one.
  alignas(64) std::atomic<std::size_t> approx_size_{0};
};

}  // namespace kpn
