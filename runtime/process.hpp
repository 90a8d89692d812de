#pragma once
// A process: one stackful fiber with a name, an id, a state, and its own counters.
//
// State machine (who makes each transition, and under which guarantee):
//
//            spawn            a worker takes it            park: registered as a channel's waiter
//   (new) --------> READY -------------------> RUNNING -------------------------------------> BLOCKED
//                     ^  <-- yield / lock-yield --'  |                                            |
//                     |                              | body returned or threw                     |
//                     '------------------------------+--- unblock: the process that takes it -----'
//                                                    v    out of the waiter slot, under the lock
//                                                  DONE
//
// - READY -> RUNNING: only the worker that removed the process from a run-queue (it owns it then).
// - RUNNING -> READY | BLOCKED | DONE: the worker it ran on, *after* the switch back to the worker has
//   completed, so the process is off its stack before anyone else may see it in a queue or a waiter slot.
// - BLOCKED -> READY: the one process that removed it from the channel's waiter slot under the channel
//   lock. The slot is written under that lock and the worker releases the lock only after the switch
//   (the "unlock after switch" handshake), so the waker never sees a process still on its own stack.
// Consequently exactly one party owns a process at any time, and a process never runs on two workers at
// once (debug builds assert it with `on_cpu`).

#include <atomic>
#include <cstdint>
#include <exception>
#include <string>

#include <boost/context/fiber.hpp>

#include "runtime/process_options.hpp"
#include "runtime/process_state.hpp"
#include "runtime/unique_function.hpp"

namespace kpn {

class BusyWaitMutex;
class ChannelView;
class RunState;

using ProcessId = std::uint64_t;

class Process {
 public:
  Process(RunState& run, ProcessId id, std::string name, UniqueFunction<void()> body, ProcessOptions options);
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  ProcessId id() const noexcept { return id_; }
  const std::string& name() const noexcept { return name_; }
  const ProcessOptions& options() const noexcept { return options_; }
  RunState& run_state() const noexcept { return run_; }
  ProcessState state() const noexcept { return state_.load(std::memory_order_acquire); }

  // The worker this process last ran on; -1 before its first run. Written by that worker before the
  // process can be seen by anyone else (see the state machine), read by whoever owns the process next.
  int last_worker = -1;
  // Where the process wants to live; -1 for no preference. A policy may change it at any time (gp migrates
  // a process that way) and reads it when it places the process; any value it reads is a valid worker, and
  // the run-queue's lock orders the process itself, so relaxed accesses are enough.
  std::atomic<int> home_worker{-1};

  // CPU time in cycle_clock ticks. Written only by the worker running the process (a relaxed store of its
  // own load, like WorkerCounters), read at any time by policies that weigh processes by it (gp).
  std::atomic<std::uint64_t> cpu_ticks{0};
  // Times switched in; written only by the worker running the process, read after the run or when it ends.
  std::uint64_t switches = 0;

  // The process's stack (top and usable size), for the stack-overflow report. Set at creation.
  boost::context::stack_context stack;

  // What the process waits for while BLOCKED, for deadlock reports. Written by the process under the
  // channel lock before it parks.
  ChannelView* wait_channel = nullptr;
  WaitDirection wait_direction = WaitDirection::None;

 private:
  friend class Worker;
  friend class RunState;
  friend void park(BusyWaitMutex&, Process*&, ChannelView&, WaitDirection);
  friend void yield_for_lock();
  friend void yield();
  friend void unblock(Process*);

  // Runs on the process's own stack: the body, exception capture, cleanup.
  boost::context::fiber entry(boost::context::fiber&& worker);
  // Switches from the process's stack back to the worker that resumed it.
  void switch_to_worker(SwitchReason why);
  // Called on the process's stack after a switch back in: throws Cancelled when the network is stopping.
  void after_resume();

  RunState& run_;
  const ProcessId id_;
  const std::string name_;
  const ProcessOptions options_;
  UniqueFunction<void()> body_;

  std::atomic<ProcessState> state_{ProcessState::Ready};
  // The suspended process; valid while not RUNNING. Owned by whoever owns the process.
  boost::context::fiber context_;
  // The worker's continuation; valid while RUNNING, touched only on the process's own stack.
  boost::context::fiber worker_;
  // Set by the process before switching out, read by the worker after the switch.
  SwitchReason reason_ = SwitchReason::Exit;
  BusyWaitMutex* release_after_switch_ = nullptr;
  ResumePoint resume_point_ = ResumePoint::NotStarted;
  // Set by the runtime (while it owns the suspended process) to unwind it when the network stops.
  bool cancel_ = false;
  std::exception_ptr failure_;
#if defined(KPN_DEBUG_CHECKS)
  std::atomic<bool> on_cpu_{false};
#endif
#if defined(KPN_ASAN)
  void* asan_fake_stack_ = nullptr;
  const void* resumer_stack_bottom_ = nullptr;  // the worker thread's stack, learnt at each resume
  std::size_t resumer_stack_size_ = 0;
#endif
#if defined(KPN_TSAN)
  void* tsan_fiber_ = nullptr;
  void* resumer_tsan_fiber_ = nullptr;  // the worker's, set at each resume
#endif

  // Intrusive links of the run's process registry, guarded by the registry's mutex.
  Process* reg_prev_ = nullptr;
  Process* reg_next_ = nullptr;
};

}  // namespace kpn
