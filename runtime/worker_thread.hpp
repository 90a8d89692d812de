#pragma once
// The mechanism side of a worker: one kernel thread, pinned to one processing unit, that asks the policy
// for a process, switches to it, and acts on the reason the process gave when it switches back (process.hpp,
// SwitchReason) *after* the switch has completed: hand it back to the policy, release the channel lock it
// parked under, or retire it. The loop ends when the run stops.

#include <cstdint>

#include "runtime/worker.hpp"

namespace kpn {

class CpuTopology;
class Process;
struct RunShared;

class WorkerThread {
 public:
  // index -1: the runtime's teardown helper, which only unwinds processes on the thread that called run().
  WorkerThread(RunShared& run, int index, int pu);
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  Worker& worker() noexcept { return worker_; }
  // The kernel thread's body: pin, then run processes until the run stops.
  void thread_main(const CpuTopology* topology);
  // Switches to `p` (which this worker owns and which is READY) and handles its switch back.
  void run_process(Process& p);

 private:
  void after_switch(Process& p);
  bool start(Process& p);
  void discard_unstarted(Process& p);
  // Records the run slice of `p` that just ended; `start` and `end` in TraceBuffer::now() ticks.
  void trace_run(TraceBuffer& trace, Process& p, std::int64_t start, std::int64_t end);

  RunShared& run_;
  Worker worker_;
  std::uint64_t last_tick_;  // cycle_clock at the last switch back (or the end of the last idle spell)
};

}  // namespace kpn
