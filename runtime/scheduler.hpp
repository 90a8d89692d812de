#pragma once
// The scheduling policy interface. The runtime owns the mechanism (workers, switching, blocking, parking,
// termination); a policy owns its queues and its per-process data (Process::policy_data) and decides
// where a process goes and what a worker runs next. Policies live in schedulers/, one file pair each, and
// register by name (scheduler_registry.hpp); the guide "writing a policy" is in docs/schedulers.md.
//
// Threading contract: start() and on_network() run once per run, before any worker thread exists; every
// other hook runs on a worker thread (or, for on_spawn of the initial network, on the thread calling
// Runtime::run before the workers start), concurrently with the same hooks on other workers. A hook must
// not block the kernel thread except on locks of the policy's own that are held briefly.
//
// Ownership: a process handed to on_spawn, on_unblock or on_yield belongs to the policy until pick_next
// returns it; the policy must hand each such process out exactly once. Processes still queued when a run
// stops are the runtime's again (it unwinds them); the next start() must forget them.

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/process_graph.hpp"

namespace kpn {

class CpuTopology;
class IdleWorkers;
class Process;
class Worker;

// A policy's settings, as key=value pairs in the order given (RuntimeOptions::scheduler_options,
// kpn-run --scheduler-option). Each policy that takes any validates them when it is made
// (scheduler_registry.hpp); one that takes none refuses every key.
using SchedulerOptions = std::vector<std::pair<std::string, std::string>>;

// What a policy may ask of the run it schedules; valid from start() until the run ends.
class KPN_EXPORT SchedulerContext {
 public:
  virtual std::span<Worker* const> workers() const noexcept = 0;
  // The machine's topology (hwloc), or nullptr when workers are not pinned.
  virtual const CpuTopology* topology() const noexcept = 0;
  // The unfinished processes with their CPU time and home (Scheduler::home_of), and the channels between
  // two of them with their message counts. Holds the process table's lock only while it copies the
  // processes, and each channel's lock only for its snapshot.
  virtual ProcessGraph live_graph() = 0;
  // Calls `visit` for every unfinished process, holding the process table's lock (so none finishes
  // meanwhile): keep it short, it delays every process that spawns or finishes.
  virtual void for_each_live_process(const std::function<void(Process&)>& visit) = 0;
  // Lets idle workers sleep instead of spinning (idle_workers.hpp): a policy that uses it calls
  // notify_work() whenever it makes a process runnable where a sleeping worker could take it.
  virtual IdleWorkers& idle_workers() noexcept = 0;

 protected:
  ~SchedulerContext() = default;
};

class KPN_EXPORT Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string_view name() const noexcept = 0;

  // A new run begins. context.workers()[i] has index i.
  virtual void start(SchedulerContext& context) = 0;
  // The initial network, after start() and before its processes are spawned (on_spawn with a null
  // spawner, in the order of `network.vertices`). Channels appear as edges when both ends are declared.
  virtual void on_network(const ProcessGraph& network) { (void)network; }
  // Whether on_network needs the graph. Building it (a vertex per process, an edge per channel, found
  // through two hash maps) is a tenth of the start of a 100,000-process network, so the run builds it only
  // for a policy that answers true; the others get an empty graph.
  virtual bool wants_network() const noexcept { return false; }
  // How many processes the initial network has: called after on_network and before their on_spawn calls,
  // for every policy (it costs nothing to tell).
  virtual void on_network_size(std::size_t processes) { (void)processes; }
  // Whether a channel's writer may hand a value straight to a parked reader (channels/channel.hpp), the
  // reader then returning without the lock. On by default; the Nornir paper's work stealing turns it off,
  // because its runtime had no such path and the hand-off changes when a woken reader is ready to be
  // stolen (the experiments reproduce that runtime).
  virtual bool direct_handoff() const noexcept { return true; }
  // Place a new process. `spawner` is the worker whose running process spawned it, or nullptr for the
  // processes of the initial network.
  virtual void on_spawn(Process& p, Worker* spawner) = 0;
  // Place a process that was blocked and has just been unblocked by the process running on `waker`
  // (nullptr if the unblocking code did not run on one of this run's workers).
  virtual void on_unblock(Process& p, Worker* waker) = 0;
  // Place a process that yielded the CPU on worker `w` (kpn::yield, or a channel lock that was taken).
  virtual void on_yield(Process& p, Worker& w) = 0;
  // The next process for `w` to run, or nullptr if it found none this time.
  virtual Process* pick_next(Worker& w) = 0;
  // A process `w` can run next without looking beyond what is its own (no steal attempt, no wait), or
  // nullptr; what pick_next would have returned first. Asked on the stack of a process that parks on `w`
  // or yields on `w` (that process is in no queue yet), so that the worker switches straight to the next one
  // (worker_thread.hpp); when it answers nullptr the worker's loop asks pick_next as usual. The default
  // answers nullptr: every switch goes through the loop.
  virtual Process* pick_local(Worker& w) {
    (void)w;
    return nullptr;
  }
  // `p`, in its first run on `w`, parks on a channel (runtime/blocking.cpp's park), on its own stack before
  // it switches out: `p` is still `w`'s running process and nobody else can see it parked yet.
  virtual void on_first_park(Process& p, Worker& w) {
    (void)p;
    (void)w;
  }
  // `w` found nothing to run; called before it asks pick_next again.
  virtual void on_idle(Worker& w) = 0;
  // The worker `p` is meant to live on, or -1 if the policy has no such notion (reports, graphs).
  virtual int home_of(Process& p) const noexcept { (void)p; return -1; }
  // Policy-specific figures for the run's report (name, value), read after every worker has stopped.
  virtual std::vector<std::pair<std::string, double>> stats() const { return {}; }
};

}  // namespace kpn
