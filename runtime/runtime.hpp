#pragma once
// runtime/: the mechanism of kpn. Processes are stackful fibers (Boost.Context) run by one pinned kernel
// thread per CPU (a worker); a read from an empty channel or a write to a full one parks the process and
// its worker runs another. The policy that decides where processes run is a Scheduler, chosen by name.
// This layer knows no channel type, no YAML and no concrete scheduler.
//
//   kpn::Runtime rt({.cpus = 2, .scheduler = "ws-last"});
//   kpn::RunReport report = rt.run(network);   // throws ProcessFailed or DeadlockError

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/config.hpp"
#include "runtime/errors.hpp"
#include "runtime/export.hpp"
#include "runtime/network_spec.hpp"
#include "runtime/pin_mode.hpp"
#include "runtime/report.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/trace_recorder.hpp"

namespace kpn {

class CpuTopology;
class Run;
class StackPool;

struct RuntimeOptions {
  // Workers (kernel threads). 0: one per processing unit this program may use. More than that is allowed
  // for testing, with a warning: workers then share processing units.
  unsigned cpus = 0;
  // Scheduling policy, by registered name (see kpn::scheduler_list()).
  std::string scheduler = config::kDefaultScheduler;
  // Where workers are pinned (hwloc): one per physical core first, NUMA nodes in turn (cores); in
  // hwloc's logical PU order, hyperthread siblings together (pus); not at all (none). See pin_mode.hpp.
  PinMode pin = PinMode::cores;
  // Artificial deadlocks are resolved by doubling the smallest full channel (Parks' rule), up to this
  // many messages; past it the deadlock is an error. 1 disables growth (every deadlock fails the run).
  std::size_t max_capacity = std::size_t{1} << 20;
  // Look for local deadlocks (runtime/deadlock.hpp) every this many milliseconds; 0 turns it off.
  unsigned local_deadlock_scan_ms = config::kLocalDeadlockScanMs;
  // Write an execution trace of every run to this file (Chrome trace-event JSON, for ui.perfetto.dev);
  // "" for none. See docs/tracing.md. The report says how it went (RunReport::trace_*).
  std::string trace = {};
  // Most recorded events a trace keeps (its size stays bounded); past that, events are counted as dropped.
  std::size_t trace_limit = config::kTraceLimit;
  // Period of the channel fill-level samples in a trace, in milliseconds (at least 1).
  unsigned trace_sample_ms = config::kTraceSampleMs;
  // Most kernel threads that run kpn::blocking calls at once (1 to config::kMaxBlockingThreads). The pool
  // starts a thread per call in flight, lazily, up to this; past it calls wait their turn.
  unsigned blocking_threads = config::kBlockingThreads;
  // Settings for the policy, key=value (e.g. {{"interval_ms", "20"}} for speed-balance); the policy
  // validates them and the constructor throws std::invalid_argument naming the allowed keys. Ignored by the
  // constructor that takes a policy object.
  SchedulerOptions scheduler_options = {};
};

class KPN_EXPORT Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  // With a policy object of the caller's instead of a registered name (options.scheduler is ignored).
  Runtime(RuntimeOptions options, std::unique_ptr<Scheduler> scheduler);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Runs `network` until every process has ended and returns what was measured. A network runs once.
  // Throws ProcessFailed if a process threw (after unwinding every other process), DeadlockError if every
  // remaining process blocked; both carry the report. Not reentrant: one run at a time per Runtime.
  RunReport run(NetworkSpec& network);

  // Stops the running network: workers finish the process they run, every other process is unwound,
  // and run() throws Interrupted with the report so far. Called while no network runs, it stops the next
  // run() at once (a signal that arrives just before a run is not lost). Async-signal-safe (atomic loads
  // and stores only), so a SIGINT handler may call it.
  void interrupt() noexcept;

  // Cancels processes of the running network (cancel.hpp): every unfinished process named
  // `process_name`, the process `id`, or every process of `group` (ProcessOptions::group). Callable from any
  // thread while run() runs, processes of the network included; returns how many it asked to unwind.
  // std::invalid_argument if the run never had such a process, std::logic_error if no network is running.
  // Unlike interrupt() it takes locks, so it is not for signal handlers.
  std::size_t cancel(std::string_view process_name);
  std::size_t cancel(ProcessId id);
  std::size_t cancel_group(std::string_view group);

  // How many processes of the running network have not finished (spawned ones included), 0 while no network
  // runs. From any thread, processes included; a process that spawns counts its child before spawn returns.
  // For a library watching a run from outside (the distributed layer's deadlock check across ranks).
  std::int64_t live_processes() noexcept;

  unsigned cpus() const noexcept { return static_cast<unsigned>(pus_.size()); }
  const std::string& scheduler_name() const noexcept { return scheduler_name_; }

 private:
  void place_workers(const RuntimeOptions& options);
  // Calls `f(run)` on the published run, kept alive meanwhile as interrupt() keeps it; std::logic_error if none.
  template <class F>
  std::size_t with_run(const char* what, F f);

  std::unique_ptr<CpuTopology> topology_;
  std::unique_ptr<Scheduler> scheduler_;
  std::string scheduler_name_;
  std::vector<int> pus_;  // per worker: the PU it is pinned to, or -1
  // Process stacks, kept from one run to the next: a second run of a large network maps nothing.
  std::unique_ptr<StackPool> stacks_;
  PinMode pin_ = PinMode::cores;
  TopologyReport topology_report_;
  std::size_t max_capacity_;
  std::optional<TraceSettings> trace_;
  unsigned scan_ms_;
  unsigned blocking_threads_;
  bool running_ = false;
  std::atomic<Run*> current_run_{nullptr};
  std::atomic<bool> pending_interrupt_{false};  // an interrupt() that no run has consumed yet
  std::atomic<int> interrupters_{0};            // interrupt() calls that may be touching current_run_
};

}  // namespace kpn
