#pragma once
// What every process and worker of one run shares (Tokio's `Shared`): the policy, the stop state, the
// stacks (the Runtime's pool, lent to the run), the process table, the channels and the quiescence counts. Each part guards itself (see its
// header); this struct only puts them side by side and adds the two operations that touch several:
// creating a process and retiring one. The run (run.hpp) owns it and the worker threads.

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "runtime/blocking_pool.hpp"
#include "runtime/busy_wait_mutex.hpp"
#include "runtime/channel_registry.hpp"
#include "runtime/config.hpp"
#include "runtime/external_wakers.hpp"
#include "runtime/idle_workers.hpp"
#include "runtime/process_id.hpp"
#include "runtime/process_options.hpp"
#include "runtime/process_table.hpp"
#include "runtime/quiescence.hpp"
#include "runtime/stack_pool.hpp"
#include "runtime/stop_state.hpp"
#include "runtime/timer_queue.hpp"
#include "runtime/unique_function.hpp"
#include "runtime/worker_exits.hpp"

namespace kpn {

class Process;
class Scheduler;
class TraceRecorder;
class Worker;

struct RunShared {
  RunShared(Scheduler& policy, StackPool& pool, unsigned workers)
      : scheduler(policy), stacks(pool), idle(workers), exits(workers), table(workers) {
    idle.watch_timers(&timers.earliest_word());
    // Both async-signal-safe, as the hook must be (Runtime::interrupt runs it in a signal handler).
    stop.on_stop(
        [](void* run) noexcept {
          auto* shared = static_cast<RunShared*>(run);
          shared->idle.wake_all();
          shared->exits.stop_requested();
        },
        this);
  }
  RunShared(const RunShared&) = delete;
  RunShared& operator=(const RunShared&) = delete;

  // Whether a process of `group` was ever created in this run (cancel.cpp's unknown groups).
  bool had_group(std::string_view group) const;

  // Creates a process and hands it to the policy. `spawner` is the worker of the spawning process, or
  // nullptr for the initial network. Returns the new id (the process itself may have finished and be gone
  // by the time this returns).
  ProcessId spawn(std::string name, UniqueFunction<void()> body, ProcessOptions options, Worker* spawner);
  // `worker` retires `p` (DONE and off its stack): records its report, frees it, and counts it out (a worker
  // owes the decrement of the active count, Worker::owe_deactivation; the teardown helper makes it).
  void retire(Process& p, Worker& worker);

  Scheduler& scheduler;
  StopState stop;
  StackPool& stacks;  // the Runtime's: stacks outlive the run and serve the next one
  TimerQueue timers;  // processes in timed waits, by deadline; fired at the workers' scheduling points
  // What a sleeping process parks under (blocking.hpp's park_until), guarding every Process::sleep_slot_:
  // held from the start of a sleep until its process is off its stack, and try_locked by a firer. One per
  // run, not per process (a process may not include the lock's unit); held for a heap insertion and a switch.
  BusyWaitMutex sleep_lock;
  IdleWorkers idle;  // sleeping workers, for policies that let them sleep; woken when the run stops
  WorkerExits exits;  // how Runtime::run waits for the workers, and signals those stuck when the run stops
  ProcessTable table;
  ChannelRegistry channels;
  Quiescence quiescence;
  // The next id not yet given or reserved (workers reserve kWorkerIdBlock at a time: Worker::reserve_ids).
  std::atomic<ProcessId> next_id{1};
  // The run's trace recorder, or nullptr when the run is not traced. Set before any worker starts.
  TraceRecorder* trace = nullptr;
  // The threads of kpn::blocking calls (blocking_call.hpp); none until the first call. Last, so that it is
  // destroyed (its idle threads joined) first; by then no call is in flight (Run::execute waits for them).
  BlockingPool blocking{config::kBlockingThreads};
  ExternalWakers external;  // closed by the run once its workers have left (external_wakers.hpp)

 private:
  mutable std::mutex groups_mutex_;          // guards groups_
  std::unordered_set<std::string> groups_;   // every ProcessOptions::group a process of the run had
};

}  // namespace kpn
