#pragma once
// Everything that lives for one run of a network: the workers, the process registry, the counts that
// detect termination and deadlock, the first failure, and the stack pool.
//
// Termination and deadlock detection (no polling thread, no false positives):
//   live   = processes that have not finished;
//   active = processes READY or RUNNING.
// active is raised before a process can become runnable (spawn, unblock, both done by a running process,
// which itself counts as active) and lowered only after a process has left the CPU (parked or exited).
// So active reaches 0 exactly when nothing runs and nothing is queued, and then nothing can change any
// more (only a running process wakes or spawns others). The worker whose decrement reaches 0 decides:
// live == 0 means the network finished; otherwise every remaining process is blocked: a deadlock, which
// is resolved if it is artificial (deadlock.hpp: a channel grows and its writer wakes, so active is 1
// again) and otherwise fails the run with a DeadlockError.
//
// Stopping (finished, a process failed, or a deadlock) sets `stopping`. Workers finish the process they
// run and leave their loops; blocking calls and kpn::yield() then throw detail::Cancelled, unblock() does
// nothing. After joining the workers, the thread that called run() resumes every unfinished process with
// its cancel flag set, so each unwinds on its own stack (destructors run, stacks return to the pool).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/network_spec.hpp"
#include "runtime/process_graph.hpp"
#include "runtime/process.hpp"
#include "runtime/report.hpp"
#include "runtime/stack_pool.hpp"

namespace kpn {

class CpuTopology;
class Process;
class RunError;
class Scheduler;
class Worker;

class RunState {
 public:
  // pus[i] is the processing unit worker i is pinned to, or -1 for no pinning.
  // max_capacity: the largest capacity Parks' rule may grow a channel to (deadlock.hpp).
  // scan_ms: period of the local-deadlock scan, 0 for none.
  RunState(Scheduler& scheduler, std::vector<int> pus, const CpuTopology* topology, std::size_t max_capacity,
           unsigned scan_ms);
  ~RunState();
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;

  // Runs the network to the end. Throws a RunError (with the report attached) if it failed.
  RunReport execute(NetworkSpec& network);

  Scheduler& scheduler() const noexcept { return scheduler_; }
  StackPool& stacks() noexcept { return stacks_; }
  const CpuTopology* topology() const noexcept { return topology_; }
  bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }
  // Stops the run from outside; async-signal-safe.
  void interrupt() noexcept {
    interrupted_.store(true, std::memory_order_relaxed);
    request_stop();
  }

  // Creates a process and hands it to the scheduler. `spawner` is the worker of the spawning process, or
  // nullptr for the initial network.
  // Returns the new id (the process itself may have finished and be gone by the time this returns).
  ProcessId spawn(std::string name, UniqueFunction<void()> body, ProcessOptions options, Worker* spawner);
  void register_channel(std::shared_ptr<ChannelView> channel);

  // For policies that place processes by the graph. live_graph() lists the unfinished processes with their
  // CPU time and home, and the channels between two of them with their message counts; it holds the
  // registry lock only while it copies the processes, and each channel's lock only for its snapshot.
  ProcessGraph live_graph();
  // Calls `visit` for every unfinished process, holding the registry lock (so none finishes meanwhile):
  // keep `visit` short, it delays every process that spawns or finishes.
  template <class Visit>
  void for_each_live_process(Visit&& visit) {
    std::lock_guard g(registry_mutex_);
    for (Process* p = registry_head_; p != nullptr; p = p->reg_next_) visit(*p);
  }

  // The local-deadlock scan (deadlock.hpp). Every kScanClockCheckEvery iterations a worker calls
  // maybe_scan(); when the period has passed, the first to claim the scan asks the others to pause, waits
  // until they all sit in pause_here() (so no process runs and every blocked process and channel is
  // stable), looks for a cycle of blocked processes, resolves or reports it, and lets them go.
  bool pause_requested() const noexcept { return pause_requested_.load(std::memory_order_acquire); }
  void pause_here() noexcept;
  void maybe_scan();

  // Accounting for the detector above.
  void process_unblocked() noexcept { active_.fetch_add(1, std::memory_order_relaxed); }
  void process_parked();
  // The worker retires `p` (already DONE and off its stack): records its report and frees it.
  void process_exited(Process& p);
  // `p` threw; the first failure stops the network.
  void process_failed(Process& p, std::exception_ptr error);

 private:
  void on_quiescent();
  std::vector<struct BlockedProcess> collect_blocked();
  // Parks' rule over `blocked` (or the subset `only`): grows a channel and returns true, or returns false
  // with the reason in `refused`.
  bool resolve_artificial(std::vector<struct BlockedProcess>& blocked, const std::vector<std::size_t>* only,
                          std::string& refused);
  void scan_for_local_deadlock();
  void fail(std::unique_ptr<RunError> error);
  void request_stop() noexcept { stopping_.store(true, std::memory_order_release); }
  void unwind_remaining();
  RunReport build_report(double wall_s, std::uint64_t ticks);
  // The initial network's graph, for Scheduler::on_network.
  ProcessGraph initial_graph(const std::vector<ProcessSpec>& specs);
  // Adds an edge for every channel whose writer and reader are both vertices of `g` (by name).
  void add_channel_edges(ProcessGraph& g);

  Scheduler& scheduler_;
  const CpuTopology* topology_;
  std::vector<int> pus_;
  const std::size_t max_capacity_;
  // Touched only by on_quiescent and the scan, which never run at the same time (the scan waits until
  // every worker, including one inside on_quiescent, has paused).
  std::uint64_t deadlocks_resolved_ = 0;
  std::vector<std::unique_ptr<Worker>> workers_;
  StackPool stacks_;

  const std::int64_t scan_period_ns_;
  std::atomic<bool> stopping_{false};
  alignas(64) std::atomic<bool> pause_requested_{false};
  std::atomic<int> paused_{0};
  std::atomic<std::int64_t> next_scan_ns_{0};
  std::int64_t scan_backoff_ns_ = 0;  // touched only by the worker holding the scan
  std::atomic<bool> interrupted_{false};
  alignas(64) std::atomic<std::int64_t> live_{0};
  alignas(64) std::atomic<std::int64_t> active_{0};
  alignas(64) std::atomic<std::uint64_t> next_id_{1};

  // Guards the registry of unfinished processes (an intrusive list) and the reports of finished ones.
  std::mutex registry_mutex_;
  Process* registry_head_ = nullptr;
  struct Finished {
    std::uint64_t id;
    std::string name;
    std::uint64_t cpu_ticks;
    std::uint64_t switches;
    int last_worker;
    int home_worker;
  };
  std::vector<Finished> finished_;

  std::mutex channels_mutex_;
  std::vector<std::shared_ptr<ChannelView>> channels_;

  std::mutex failure_mutex_;
  std::unique_ptr<RunError> failure_;  // the first failure wins
};

}  // namespace kpn
