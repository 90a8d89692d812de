#pragma once
// The mechanism side of a worker: one kernel thread, pinned to one processing unit, that asks the policy
// for a process, switches to it, and acts on the reason the process gave when it switches back (process.hpp,
// SwitchReason) *after* the switch has completed: hand it back to the policy, release the channel lock it
// parked under, or retire it. The loop ends when the run stops.
//
// Direct switches. A process that parks or yields asks the policy, still on its own stack, for a process this worker
// can run without looking elsewhere (Scheduler::pick_local) and jumps straight to it (switch_directly):
// one stack switch instead of two, and no pass through the loop. What the worker would have done in
// between is done on the way, in the same order of effects: the parked process's run is charged, the
// next one is entered (state RUNNING, counters, the current process), and the parked process's
// after_switch runs on the next one's stack, once the parked one is off its own (boost::context's
// resume_with runs it there, before the next one returns from its own switch). So the rules of the state
// machine hold as they are: the parked process is published (its lock released) only after it has left
// its stack, and only the worker that owns a process enters it. A yielding process is handed back to the
// policy (on_yield) the same way, on the next one's stack: a thief can take it only once it is off its own.
// A yield switches directly only under policies with Scheduler::direct_handoff (not the Nornir paper's
// ws-cur and ws-last, whose runtime stays the paper's), and only when the policy has a local process to
// run: a yield with nothing else to run goes through the loop and runs again after its scheduling point.
//
// The worker's own continuation travels with the running process: every process keeps in `worker_` the
// fiber to switch to when it goes back to the loop, and a direct switch hands it to the next process.
// `running_` says which process the loop gets back when its switch returns (the last of a chain of
// direct switches). Everything that needs the loop (nothing local to run, the run stopping, a timer due,
// a traced run, a process that has no stack yet, a yield under ws-cur or ws-last, an exit) goes through it
// as before.

#include <cstdint>

#include "runtime/cpu_sampler.hpp"
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
  // Switches to `p` (which this worker owns and which is READY) and handles its switch back (of `p`, or
  // of the process a chain of direct switches from `p` ended in).
  void run_process(Process& p);
  // On the stack of `p`, the running process of this thread's worker, which is parking with everything
  // its after_switch needs already set (its lock still held: nobody can wake it yet). Switches straight to
  // the next process the policy has for this worker and returns true once `p` runs again (on any worker);
  // false when the switch must go through the worker's loop.
  static bool switch_directly(Process& p);

 private:
  void after_switch(Process& p);
  // The bookkeeping of a switch into `p` (READY -> RUNNING, counters, the current process).
  void enter(Process& p);
  bool start(Process& p);
  void discard_unstarted(Process& p);
  // Records the run slice of `p` that just ended; `start` and `end` in TraceBuffer::now() ticks.
  void trace_run(TraceBuffer& trace, Process& p, std::int64_t start, std::int64_t end);

  RunShared& run_;
  Worker worker_;
  // Busy and idle time: cycle_clock at the worker's last change between running processes and finding
  // none (read once per change, not per switch).
  std::uint64_t last_tick_;
  CpuSampler sampler_;  // the processes' CPU time
  // The process running on this worker (the last one entered); read by the loop when its switch returns.
  // Touched only by this worker's thread.
  Process* running_ = nullptr;
  // A process a direct switch took from the policy but could not switch to (it has no stack yet): the
  // loop runs it next. Touched only by this worker's thread; left to the teardown if the run stops first.
  Process* next_ = nullptr;
};

}  // namespace kpn
