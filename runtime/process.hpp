#pragma once
// A process: one stackful fiber with a name, an id, a state, its own counters, and a slot for the data of
// the policy that schedules it.
//
// State machine. Every change goes through transition(from, to), which debug builds check (as marl's
// changeFiberState and Go's casgstatus do); who may make each change, and under which guarantee:
//
//            spawn            a worker takes it            park: registered as a channel's waiter
//   (new) --------> READY -------------------> RUNNING -------------------------------------> BLOCKED
//                     ^  <-- yield / lock-yield --'  |                                            |
//                     |                              | body returned or threw                     |
//                     '------------------------------+--- unblock: the process that takes it -----'
//                                                    v    out of the waiter slot, under the lock
//                                                  DONE
//
// - READY -> RUNNING: only the worker that got the process from the policy's pick_next (it owns it then).
// - RUNNING -> READY | BLOCKED | DONE: the worker it ran on, *after* the switch back to the worker has
//   completed, so the process is off its stack before anyone else may see it in a queue or a waiter slot.
// - BLOCKED -> READY: the one party that removed it from the channel's waiter slot under the channel
//   lock. The slot is written under that lock and the worker releases the lock only after the switch
//   (the "unlock after switch" handshake, blocking.hpp), so the waker never sees a process still on its
//   own stack. A process parked in several slots at once (a select, multi_wait.hpp) is readied by the one
//   party that wins its claim; a canceller (cancel.cpp) takes a parked process out of its slot the way a
//   waker does, under the same lock, so it too is such a party and never a second owner.
// Consequently exactly one party owns a process at any time, and a process never runs on two workers at
// once (debug builds assert it with `on_cpu_`).
//
// The stack is taken when the process first runs (create_context), not when it is spawned: 100,000
// processes that run one after another need a handful of pooled stacks. A process unwound before it ever
// ran gets none: the teardown thread destroys its body (WorkerThread::discard_unstarted).
//
// Policies (schedulers/) see only the public part: identity, options, where it last ran, its CPU time,
// and policy_data<T>(), a slot of kPolicySlotBytes that belongs to the policy alone (Boost.Fiber's
// algorithm_with_properties, without an allocation per process).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <type_traits>

#include <boost/context/fiber.hpp>

#include "runtime/asan.hpp"
#include "runtime/channel_view.hpp"
#include "runtime/export.hpp"
#include "runtime/process_id.hpp"
#include "runtime/process_options.hpp"
#include "runtime/process_state.hpp"
#include "runtime/select_state.hpp"
#include "runtime/stop_state.hpp"
#include "runtime/timer_queue.hpp"
#include "runtime/tsan.hpp"
#include "runtime/unique_function.hpp"
#include "runtime/wait_record.hpp"

namespace kpn {

class StackPool;
class BusyWaitMutex;
class BlockingPool;
struct BlockingJob;
class Worker;
struct RunShared;

class KPN_EXPORT Process {
 public:
  // Bytes a policy may keep per process in policy_data<T>().
  static constexpr std::size_t kPolicySlotBytes = 32;

  Process(RunShared& run, StopState& stop, StackPool& stacks, ProcessId id, std::string name,
          UniqueFunction<void()> body, ProcessOptions options);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  ProcessId id() const noexcept { return id_; }
  const std::string& name() const noexcept { return name_; }
  const ProcessOptions& options() const noexcept { return options_; }
  ProcessState state() const noexcept { return state_.load(std::memory_order_acquire); }

  // The worker this process last ran on; -1 before its first run. Written by that worker before the
  // process can be seen by anyone else (see the state machine), read by whoever owns the process next.
  int last_worker() const noexcept { return last_worker_; }
  // Whether the process's current run, or its last one while it is not running, readied another process
  // (unblock). Cleared by the worker that starts a run, set by unblock on the waking process: both by the
  // process's owner. A policy reads it in on_unblock, when the park that ended that run has published it.
  bool readied_in_last_run() const noexcept { return readied_; }
  // CPU time in cycle_clock ticks: exact over the first runs and for long runs, an unbiased estimate from
  // sampled runs otherwise (cpu_sampler.hpp). Written only by the worker running the process (a relaxed
  // store of its own load), read at any time by policies that weigh processes by it (gp).
  std::uint64_t cpu_ticks() const noexcept { return cpu_ticks_.load(std::memory_order_relaxed); }
  std::uint64_t switches() const noexcept { return switches_; }

  // The policy's own data for this process. The slot is zeroed at creation and nobody but the policy
  // touches it, so T must be an implicit-lifetime type that zero bytes make valid (plain integers and
  // enums; use std::atomic_ref for fields other workers read concurrently).
  template <class T>
  T& policy_data() noexcept {
    static_assert(sizeof(T) <= kPolicySlotBytes, "policy data larger than Process::kPolicySlotBytes");
    static_assert(alignof(T) <= alignof(std::max_align_t), "policy data over-aligned");
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "policy data must be a plain struct (zeroed at creation, never destroyed)");
    return *std::launder(reinterpret_cast<T*>(policy_slot_));
  }

  // The stack (top and usable size), for the stack-overflow report. Set when the process first runs
  // (empty before).
  const boost::context::stack_context& stack() const noexcept { return stack_; }

  // What the process waits for while BLOCKED (stale otherwise), for deadlock detection. Written by the
  // process before it parks and read concurrently by the deadlock monitor, hence relaxed atomics; the
  // monitor acts only on what channel snapshots confirm twice (deadlock_monitor.hpp).
  ChannelView* wait_channel() const noexcept { return wait_channel_.load(std::memory_order_relaxed); }
  WaitDirection wait_direction() const noexcept { return wait_direction_.load(std::memory_order_relaxed); }
  // Times parked: raised by the worker after each park's switch, before the state becomes BLOCKED.
  std::uint64_t park_count() const noexcept { return parks_.load(std::memory_order_acquire); }

  bool stopping() const noexcept { return stop_.stopping(); }
  // kpn::cancel asked this process to unwind (cancel.hpp). Only ever goes from false to true.
  bool cancel_requested() const noexcept { return cancel_requested_.load(std::memory_order_acquire); }
  // What every blocking point asks: unwind now (the run stops, or this process was cancelled)?
  bool must_unwind() const noexcept { return stopping() || cancel_requested(); }
  // The several channels a process in kpn::select waits on (multi_wait.hpp), or nullptr when it waits on
  // one thing or none. Read by the deadlock monitor after an acquire of the state, like wait_channel().
  const MultiWait* multi_wait() const noexcept { return select_.wait.load(std::memory_order_relaxed); }

  // True while the process is in a timed wait (a sleep, a channel wait with a deadline): its timer will
  // ready it, so it is neither idle for quiescence nor part of a deadlock (quiescence.hpp). Also true
  // during a blocking call (blocking_call.hpp), for the same reason: its pool thread will ready it. Set by
  // the process before it parks and cleared when it runs again; read by its worker after the switch, by
  // whoever readies it (which owns it then), and by the deadlock monitor (after an acquire of the state).
  bool waits_with_timer() const noexcept { return timed_.load(std::memory_order_relaxed); }

 private:
  friend class WorkerThread;
  friend class CpuSampler;
  friend class ProcessTable;
  friend class Run;
  friend void park(BusyWaitMutex&, Process*&, ChannelView&, WaitDirection);
  friend bool park_until(BusyWaitMutex&, Process*&, ChannelView*, WaitDirection, std::int64_t);
  friend void fire_due_timers(RunShared&);
  friend void park_sleeping(std::int64_t);
  friend void park_for_call(BusyWaitMutex&, Process*&, BlockingPool&, BlockingJob&);
  friend bool park_any(MultiWait&, std::int64_t);
  friend bool claim_waiter(Process*) noexcept;
  friend std::size_t cancel_where(RunShared&, const void*, bool (*)(const void*, const Process&));
  friend void unblock(Process*);
  friend class ForeignWakeList;
  friend void trace_wake(RunShared&, Process&, Worker*);
  friend void yield();
  friend void yield_for_lock();
  friend bool hold_reads(ChannelView&) noexcept;
  friend void drop_held_reads(ChannelView&) noexcept;
  friend void give_back_held_reads() noexcept;
  friend void give_back_reads_of(ChannelView&) noexcept;
  friend bool current_process_holds_reads() noexcept;

  // Gives back the reads the process holds, if any (held_reads.hpp); on the process, no channel lock held.
  void give_back_held_reads() noexcept;

  // The only way the state changes; debug builds check that the process was in `from`. Inline, with
  // constant memory orders (a run-time order would make the compiler emit a locked exchange): relaxed is
  // enough because every transition is published to the next owner by a lock (a run-queue's, a channel's)
  // or by the switch itself; only BLOCKED is released, for the deadlock monitor, which reads the state
  // with acquire and then the park count (deadlock_monitor.hpp).
  void transition(ProcessState from, ProcessState to) noexcept {
#if defined(KPN_DEBUG_CHECKS)
    check_transition(from, to);
#else
    (void)from;
    if (to == ProcessState::Blocked) {
      state_.store(to, std::memory_order_release);
    } else {
      state_.store(to, std::memory_order_relaxed);
    }
#endif
  }
  void check_transition(ProcessState from, ProcessState to) noexcept;
  // Whether the fiber exists (the process has been switched to once). Read by the worker that owns it.
  bool started() const noexcept { return static_cast<bool>(context_); }
  // Takes a stack and creates the fiber, on the worker about to run the process first; throws the pool's.
  void create_context();
  // Runs on the process's own stack: the body, exception capture, cleanup.
  boost::context::fiber entry(boost::context::fiber&& worker);
  // Switches from the process's stack back to the worker that resumed it.
  void switch_to_worker(SwitchReason why);

  RunShared& run_;
  StopState& stop_;
  StackPool& stacks_;
  const ProcessId id_;
  const std::string name_;

  // What a waker on another CPU touches (unblock, on_unblock, claim_waiter's select_.wait): 16 bytes from a
  // 16-byte boundary (checked in process.cpp), so one cache line wherever the Process lies, and a wake-up
  // across CPUs moves one line there and back, not two (run_ and stop_, also read, are never written).
  std::atomic<ProcessState> state_{ProcessState::Ready};
  std::atomic<bool> timed_{false};  // a timed wait is in progress (timer_queue.hpp, park_until)
  bool readied_ = false;            // readied_in_last_run(); a byte of this line that was padding
  // CpuSampler's, written only by the worker running the process, which writes readied_ beside it at the
  // same moment; the last byte of padding here (a field elsewhere would cost 16 bytes a process).
  std::uint8_t cpu_sample_shift_ = 0;
  int last_worker_ = -1;
  SelectState select_;  // kpn::select (multi_wait.hpp)

  const ProcessOptions options_;
  UniqueFunction<void()> body_;

  std::atomic<std::uint64_t> cpu_ticks_{0};  // an estimate past the first runs (cpu_sampler.hpp)
  std::uint64_t switches_ = 0;  // written only by the worker running the process
  alignas(std::max_align_t) unsigned char policy_slot_[kPolicySlotBytes] = {};

  std::atomic<ChannelView*> wait_channel_{nullptr};
  std::atomic<WaitDirection> wait_direction_{WaitDirection::None};
  // The byte-sized fields of the sections below, kept here together: each beside the field it goes with
  // left a 7-byte hole (40 bytes a process; 3 MiB in a chain of 100,000). Who touches each is said below,
  // where it belongs; bytes are separate memory locations, so sharing a word races nothing.
  bool timed_out_ = false;                        // timed waits
  SwitchReason reason_ = SwitchReason::Exit;      // the switch out
  bool cancel_ = false;                           // the network's stop
  std::atomic<bool> cancel_requested_{false};     // this process's cancellation
  bool cancelled_ = false;                        // this process's cancellation
  // The process table's shard this process is in (process_table.hpp), set once, before the process is
  // shared. 16 bits fill a hole here: a wider field made every Process 16 bytes larger, and a pipeline of 8
  // stages on one worker about 5 % slower (session 56). Workers are at most config::kMaxCpus.
  std::uint16_t table_shard_ = 0;
  std::atomic<std::uint64_t> parks_{0};
  // In a traced run, the flow id of the wake-up that readied the process (0: none): written by its waker
  // while it owns the process, read by the worker that runs it next (published by the policy's queue).
  std::uint64_t trace_flow_ = 0;

  // Timed waits (timer_queue.hpp, blocking.hpp's park_until). The node is the queue's while queued.
  TimerNode timer_;
  // timed_out_ (above): set by the firer that took the process out of its slot (it owns the process then),
  // read by the process once it runs; published by the policy's queue like the state.
  // A plain sleep waits in this slot, under the run's sleep lock (run_shared.hpp), the way a channel
  // waiter waits in the channel's slot under the channel's lock.
  Process* sleep_slot_ = nullptr;

  boost::context::stack_context stack_;
  // The suspended process; valid while not RUNNING. Owned by whoever owns the process.
  boost::context::fiber context_;
  // The worker's continuation; valid while RUNNING, touched only on the process's own stack.
  boost::context::fiber worker_;
  // Set by the process before switching out (with reason_, above), read by the worker after the switch.
  BusyWaitMutex* release_after_switch_ = nullptr;
  // cancel_ (above): set by the runtime (while it owns the suspended process) to unwind it when the
  // network stops.
  // The channel whose messages the process has read without its lock, if any (held_reads.hpp). Touched
  // only by the process itself.
  ChannelView* held_reads_ = nullptr;

  // Cancellation of this process alone: a flag any thread may raise (cancel_requested_, above; only ever
  // false -> true), and where the process waits, so that a canceller can take it out of its waiter slot
  // (wait_record.hpp). cancelled_ (above): it unwound for a cancel request; written on its stack, read
  // when it is retired.
  WaitRecord wait_record_;

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

  // Intrusive links of the run's process table, guarded by the mutex of the table's shard table_shard_
  // (above).
  Process* table_prev_ = nullptr;
  Process* table_next_ = nullptr;
};

}  // namespace kpn
