#pragma once
// A worker: one kernel thread, pinned to one processing unit, that runs processes from its run-queue.
//
// Its loop: ask the scheduler for a process, switch to it, and when the process switches back, act on the
// reason it gave (process.hpp, SwitchReason) *after* the switch has completed: requeue it, release the
// channel lock it parked under, or retire it. The loop ends when the run stops.

#include <atomic>
#include <cstdint>

#include "runtime/run_queue.hpp"

namespace kpn {

class Process;
class RunState;

// Written only by the owning worker's thread (relaxed read-modify-write by that thread alone), read by
// anyone at any time; hence atomics without contention. Cache-line aligned so that workers never share a line.
struct alignas(64) WorkerCounters {
  std::atomic<std::uint64_t> context_switches{0};
  std::atomic<std::uint64_t> steal_attempts{0};
  std::atomic<std::uint64_t> steals{0};
  std::atomic<std::uint64_t> busy_ticks{0};
  std::atomic<std::uint64_t> idle_ticks{0};

  static void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
    c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
};

class alignas(64) Worker {
 public:
  // index: position among the run's workers; -1 for the runtime's teardown helper, which only unwinds.
  Worker(RunState& run, int index, int pu);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  int index() const noexcept { return index_; }
  int pu() const noexcept { return pu_; }
  RunState& run_state() const noexcept { return run_; }
  RunQueue& queue() noexcept { return queue_; }
  const RunQueue& queue() const noexcept { return queue_; }
  WorkerCounters& counters() noexcept { return counters_; }
  // A cheap per-worker random number (xorshift64*), for victim selection. Owner thread only.
  std::uint64_t next_random() noexcept;

  // The kernel thread's body: pin, then run processes until the run stops.
  void thread_main();
  // Switches to `p` (which this worker owns and which is READY) and handles its switch back.
  void run_process(Process& p);

 private:
  void after_switch(Process& p);

  RunState& run_;
  const int index_;
  const int pu_;
  std::uint64_t rng_;
  std::uint64_t last_tick_;  // cycle_clock at the last switch back (or the end of the last idle spell)
  RunQueue queue_;
  WorkerCounters counters_;
};

}  // namespace kpn
