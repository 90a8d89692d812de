#pragma once
// The scheduling policy interface. The runtime owns the mechanism (workers, switching, blocking); a policy
// only decides where a process goes and what a worker runs next. Policies live in schedulers/ and register
// by name (scheduler_registry.hpp).
//
// Threading contract: start() runs once before any worker thread exists; every other hook runs on a worker
// thread (or, for on_spawn of the initial network, on the thread calling Runtime::run before the workers
// start). A hook must not block the kernel thread except on run-queue locks.

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/process_graph.hpp"

namespace kpn {

class Process;
class Worker;

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string_view name() const noexcept = 0;

  // A new run begins with these workers (index i is workers[i]).
  virtual void start(std::span<Worker* const> workers) = 0;
  // The initial network, after start() and before its processes are spawned (on_spawn with a null
  // spawner, in the order of `network.vertices`). Channels appear as edges when both ends are declared.
  virtual void on_network(const ProcessGraph& network) { (void)network; }
  // Place a new process. `spawner` is the worker whose running process spawned it, or nullptr for the
  // processes of the initial network.
  virtual void on_spawn(Process& p, Worker* spawner) = 0;
  // Place a process that was blocked and has just been unblocked by the process running on `waker`
  // (nullptr if the unblocking code did not run on one of this run's workers).
  virtual void on_unblock(Process& p, Worker* waker) = 0;
  // Place a process that yielded the CPU on worker `w` (kpn::yield, or a channel lock that was taken).
  virtual void on_yield(Process& p, Worker& w) = 0;
  // The next process for `w` to run, or nullptr if it found none this time. Counts steal attempts.
  virtual Process* pick_next(Worker& w) = 0;
  // `w` found nothing to run; called before it asks pick_next again.
  virtual void on_idle(Worker& w) = 0;
  // Policy-specific figures for the run's report (name, value), read after every worker has stopped.
  virtual std::vector<std::pair<std::string, double>> stats() const { return {}; }
};

}  // namespace kpn
