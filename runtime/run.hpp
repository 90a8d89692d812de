#pragma once
// One run of a network: the composition root that owns what the run shares (run_shared.hpp), the worker
// threads, and the deadlock monitor, and that plays the policy's SchedulerContext.
//
// Stopping (finished, a process failed, a deadlock, an interrupt) sets the stop flag. Workers finish the
// process they run and leave their loops; blocking calls and kpn::yield() then throw detail::Cancelled and
// unblock() does nothing. After joining the workers, the thread that called run() resumes every unfinished
// process with its cancel flag set, so each unwinds on its own stack (destructors run, stacks return to
// the pool).

#include <cstddef>
#include <memory>
#include <vector>

#include "runtime/deadlock_monitor.hpp"
#include "runtime/network_spec.hpp"
#include "runtime/report.hpp"
#include "runtime/run_shared.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/trace_recorder.hpp"
#include "runtime/trace_writer.hpp"

namespace kpn {

class CpuTopology;
class RunError;
class WorkerThread;

class Run final : public SchedulerContext {
 public:
  // pus[i] is the processing unit worker i is pinned to, or -1 for no pinning; `placement` goes into the
  // report as it is. max_capacity and scan_ms: see deadlock_monitor.hpp. trace: where and how to record an
  // execution trace, or nullptr for none.
  Run(Scheduler& scheduler, StackPool& stacks, std::vector<int> pus, const CpuTopology* topology, TopologyReport placement,
      std::size_t max_capacity, unsigned scan_ms, const TraceSettings* trace = nullptr);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Runs the network to the end. Throws a RunError (with the report attached) if it failed.
  RunReport execute(NetworkSpec& network);
  // The most threads kpn::blocking calls may use (RuntimeOptions::blocking_threads). Before execute().
  void set_blocking_threads(unsigned n) noexcept { shared_.blocking.set_max_threads(n); }
  // Stops the run from outside; async-signal-safe.
  void interrupt() noexcept { shared_.stop.interrupt(); }
  // Runtime::cancel from any thread (cancel.hpp); `kind` as detail::cancel_in_run's.
  std::size_t cancel(int kind, std::string_view text, ProcessId id, const char* what);

  std::span<Worker* const> workers() const noexcept override { return workers_; }
  const CpuTopology* topology() const noexcept override { return topology_; }
  ProcessGraph live_graph() override;
  void for_each_live_process(const std::function<void(Process&)>& visit) override;
  IdleWorkers& idle_workers() noexcept override { return shared_.idle; }
  // Processes that have not finished (quiescence.hpp: live), from any thread.
  std::int64_t live_processes() const noexcept { return shared_.table.live(); }

 private:
  void run_workers();
  // Records how the run ended and writes the trace file; its outcome goes into `report`.
  void finish_trace(RunReport& report, const RunError* failure);
  void unwind_remaining();
  // The initial network's graph, for Scheduler::on_network.
  ProcessGraph initial_graph(const std::vector<ProcessSpec>& specs);
  // Adds an edge for every channel whose writer and reader are both vertices of `g`.
  void add_channel_edges(ProcessGraph& g);

  RunShared shared_;
  DeadlockMonitor monitor_;
  const CpuTopology* topology_;
  TopologyReport placement_;
  std::vector<std::unique_ptr<WorkerThread>> threads_;
  std::vector<Worker*> workers_;  // threads_[i]->worker(), the policy's view
  std::vector<int> pus_;
  std::unique_ptr<TraceRecorder> trace_;  // null unless the run is traced
  TraceRunInfo trace_run_;
};

}  // namespace kpn
