#include "runtime/worker_thread.hpp"

#include <cassert>
#include <utility>

#include "runtime/busy_wait_mutex.hpp"
#include "runtime/call_interrupt.hpp"
#include "runtime/current.hpp"
#include "runtime/cycle_clock.hpp"
#include "runtime/direct_switch.hpp"
#include "runtime/fault_handler.hpp"
#include "runtime/log.hpp"
#include "runtime/pinning.hpp"
#include "runtime/process.hpp"
#include "runtime/run_shared.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/single_writer.hpp"
#include "runtime/timed_wait.hpp"

namespace kpn {
namespace {
// This thread's worker, for switch_directly (read once, before its switch); nullptr outside a run's workers
// (the teardown helper's switches all go through run_process). initial-exec as in current.cpp.
[[gnu::tls_model("initial-exec")]] thread_local WorkerThread* t_self = nullptr;
}  // namespace

WorkerThread::WorkerThread(RunShared& run, int index, int pu)
    : run_(run),
      worker_(index, pu),
      last_tick_(cycle_clock::now()),
      sampler_(std::uint64_t{config::kSampledRunUs} * cycle_clock::ticks_per_us(),
               0x9E3779B9u * static_cast<std::uint32_t>(index + 2)) {}

void WorkerThread::thread_main(const CpuTopology* topology) {
  const AltSignalStack signal_stack;  // for the stack-overflow report (fault_handler.hpp)
  unblock_call_interrupt_signal();    // for a stopping run to interrupt a process's system call (worker_exits.hpp)
  const StackPool::ThreadBinding stacks(run_.stacks, worker_.index());
  detail::set_current_worker(&worker_, worker_.index(), &run_, run_.scheduler.direct_handoff());
  t_self = this;
  if (worker_.pu() >= 0 && topology != nullptr && !topology->pin_current_thread(worker_.pu())) {
    log().warn("worker {}: could not pin to processing unit {}; running unpinned", worker_.index(), worker_.pu());
  }
  Scheduler& scheduler = run_.scheduler;
  WorkerCounters& counters = worker_.counters();
  bool idle = false;
  last_tick_ = cycle_clock::now();
  while (!run_.stop.stopping()) {
    // A scheduling point: one relaxed load while no timer exists (timer_queue.hpp).
    if (run_.timers.due()) fire_due_timers(run_);
    Process* p = next_ != nullptr ? std::exchange(next_, nullptr) : scheduler.pick_next(worker_);
    if (p == nullptr) {
      // Before looking further or sleeping: with nothing to run here, what this worker owes may be all that
      // keeps the count above 0 (Worker::owe_deactivation). Paying may call the quiescence listener here, which may
      // ready a process on this worker (a deadlock resolved by growing a channel): look again first.
      if (const std::int64_t owed = worker_.take_owed_deactivations(); owed != 0) {
        run_.quiescence.deactivated_many(owed);
        continue;
      }
      if (!idle) {
        idle = true;
        const std::uint64_t now = cycle_clock::now();
        add_single_writer(counters.busy_ticks, now - last_tick_);
        last_tick_ = now;
      }
      scheduler.on_idle(worker_);
      continue;
    }
    if (idle) {
      idle = false;
      const std::uint64_t now = cycle_clock::now();
      add_single_writer(counters.idle_ticks, now - last_tick_);
      last_tick_ = now;
    }
    run_process(*p);
  }
  add_single_writer(idle ? counters.idle_ticks : counters.busy_ticks, cycle_clock::now() - last_tick_);
  // Processes still queued (or in next_) stay READY; the runtime unwinds them after every worker has left.
  t_self = nullptr;
  detail::set_current_worker(nullptr, -1, nullptr, false);
}

void WorkerThread::run_process(Process& p) {
  if (!p.started()) [[unlikely]] {
    if (!start(p)) return;
  }
  enter(p);
#if defined(KPN_TSAN)
  p.resumer_tsan_fiber_ = KPN_TSAN_CURRENT_FIBER();
  KPN_TSAN_SWITCH_TO(p.tsan_fiber_);
#endif
#if defined(KPN_ASAN)
  void* fake_stack = nullptr;
  KPN_ASAN_START_SWITCH(&fake_stack, static_cast<char*>(p.stack_.sp) - p.stack_.size, p.stack_.size);
#endif
  TraceBuffer* const trace = kTracingCompiledIn ? worker_.trace() : nullptr;
  const std::int64_t trace_start = trace != nullptr ? trace->now() : 0;
  boost::context::fiber back = std::move(p.context_).resume();
  // `p` switched back, or the last process of a chain of direct switches that began with `p`.
  Process& last = *running_;
  last.context_ = std::move(back);
  sampler_.end(last);
#if defined(KPN_ASAN)
  KPN_ASAN_FINISH_SWITCH(fake_stack, nullptr, nullptr);
#endif
#if defined(KPN_TSAN)
  // A process that yields or parks announces the switch itself; an exiting one cannot (process.cpp).
  if (last.reason_ == SwitchReason::Exit) KPN_TSAN_SWITCH_TO(last.resumer_tsan_fiber_);
#endif
  detail::set_current_process(nullptr);
  // A traced run makes no direct switches, so `last` is `p` there.
  if (trace != nullptr) [[unlikely]] trace_run(*trace, last, trace_start, trace->now());
  after_switch(last);
}

void WorkerThread::enter(Process& p) {
#if defined(KPN_DEBUG_CHECKS)
  const bool was_on_cpu = p.on_cpu_.exchange(true, std::memory_order_acq_rel);
  assert(!was_on_cpu && "a process must never run on two workers at once");
  (void)was_on_cpu;
#endif
  p.transition(ProcessState::Ready, ProcessState::Running);
  if (worker_.index() >= 0) p.last_worker_ = worker_.index();
  p.readied_ = false;
  ++p.switches_;
  sampler_.begin(p);
  add_single_writer(worker_.counters().context_switches);
  detail::set_current_process(&p);
  running_ = &p;
}

bool WorkerThread::switch_directly(Process& p) {
#if defined(KPN_ASAN)
  // ASan's stack-switch annotations pair each switch with the worker's stack: every switch goes there.
  (void)p;
  return false;
#else
  WorkerThread* const self = t_self;
  if (self == nullptr) return false;
  RunShared& run = self->run_;
  // Timers due between two processes, the run's stop, and a traced run's slices need the loop. So does a
  // yield under the Nornir paper's policies (not direct_handoff), whose runtime stays the paper's.
  if (run.stop.stopping() || run.timers.due()) return false;
  if (p.reason_ == SwitchReason::Yield && !run.scheduler.direct_handoff()) return false;
  if (kTracingCompiledIn && self->worker_.trace() != nullptr) return false;
  Process* next = run.scheduler.pick_local(self->worker_);
  if (next == nullptr) return false;
  if (!next->started()) {
    self->next_ = next;  // its stack is taken by the loop (start), which runs it before asking the policy
    return false;
  }
  self->sampler_.end(p);
  self->enter(*next);
#if defined(KPN_TSAN)
  next->resumer_tsan_fiber_ = p.resumer_tsan_fiber_;
  KPN_TSAN_SWITCH_TO(next->tsan_fiber_);
#endif
  // Runs on `next`'s stack once `p` is off its own; returns the worker's continuation to `next`'s pending
  // switch, and `next` keeps it in its worker_ from now on.
  p.worker_ = std::move(next->context_).resume_with([&p, self](boost::context::fiber&& from) {
    boost::context::fiber worker = std::move(p.worker_);  // before after_switch: `p` may run again after it
    p.context_ = std::move(from);
    self->after_switch(p);
    return worker;
  });
  // `p` runs again, on whichever worker took it: nothing of `self` may be used here.
  return true;
#endif
}

// Records the slice of `p` that just ended (before after_switch: an exiting process is freed there).
void WorkerThread::trace_run(TraceBuffer& trace, Process& p, std::int64_t start, std::int64_t end) {
  TraceEvent e{start, end - start, p.id(), 0, nullptr, p.trace_flow_, TraceKind::Run, 0};
  p.trace_flow_ = 0;
  switch (p.reason_) {
    case SwitchReason::Yield: e.reason = static_cast<std::uint8_t>(TraceRunEnd::Yield); break;
    case SwitchReason::LockYield: e.reason = static_cast<std::uint8_t>(TraceRunEnd::LockYield); break;
    case SwitchReason::Exit: e.reason = static_cast<std::uint8_t>(TraceRunEnd::Exit); break;
    case SwitchReason::Park:
      e.reason = static_cast<std::uint8_t>(static_cast<unsigned>(TraceRunEnd::Park) |
                                           (static_cast<unsigned>(p.wait_direction()) << 4));
      e.object = p.wait_channel();
      break;
  }
  trace.add(e);
}

// The first switch into `p` is about to happen: its stack is taken now (process.hpp). Returns false when
// `p` was dealt with here instead: unwound before it ever ran while the run stops (no stack needed), or
// no stack could be mapped, and then it fails as if its body had thrown, which stops the network; on a
// worker it is left READY in the process table and in no queue, for the teardown (Run::unwind_remaining).
bool WorkerThread::start(Process& p) {
  if (!(p.cancel_ && run_.stop.stopping())) {
    try {
      p.create_context();
      return true;
    } catch (...) {
      run_.stop.process_failed(p.name(), std::current_exception());
      if (worker_.index() >= 0) return false;
    }
  }
  discard_unstarted(p);
  return false;
}

// Ends a process that never ran, on this thread's stack: only its body's captures (channel endpoints) are
// left to destroy, and they go as this process, as at the end of Process::entry. Only the teardown calls
// this (or a worker of a stopping run, see start), so closing an endpoint changes no channel.
void WorkerThread::discard_unstarted(Process& p) {
  p.transition(ProcessState::Ready, ProcessState::Running);
  detail::set_current_process(&p);
  p.body_ = nullptr;
  detail::set_current_process(nullptr);
  p.reason_ = SwitchReason::Exit;
  after_switch(p);
}

// Runs on this worker's stack once `p` has switched out: `p` can no longer be running, so it is now safe
// to let others see it (hand it to the policy, release the lock it parked under, or retire it).
void WorkerThread::after_switch(Process& p) {
#if defined(KPN_DEBUG_CHECKS)
  p.on_cpu_.store(false, std::memory_order_release);
#endif
  switch (p.reason_) {
    case SwitchReason::Yield:
    case SwitchReason::LockYield:
      p.transition(ProcessState::Running, ProcessState::Ready);
      if (worker_.index() >= 0) run_.scheduler.on_yield(p, worker_);  // the teardown helper re-finds it itself
      return;
    case SwitchReason::Park: {
      // Every park sets release_after_switch_: the one lock to release, or nullptr for a select's park,
      // which holds several (multi_wait.hpp) in its SelectState. Both are read before the first unlock.
      BusyWaitMutex* const lock = p.release_after_switch_;
      BusyWaitMutex* const* const many = lock == nullptr ? p.select_.release_many : nullptr;
      const std::size_t many_count = p.select_.release_many_count;
      // The park count goes up before the state says BLOCKED (release), so the deadlock monitor, which
      // reads the state with acquire and then the count, can tell two parks apart. Only the worker that
      // owns the process writes it: a store of its own load, no locked instruction.
      p.parks_.store(p.parks_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
      // A timed wait stays active (quiescence.hpp); read before the unlock, after which `p` may run again.
      const bool timed = p.waits_with_timer();
      p.transition(ProcessState::Running, ProcessState::Blocked);
      // Everything above must be written before the unlock: from here on a waker may own `p`.
      if (lock != nullptr) [[likely]] {
        lock->unlock();
      } else {
        // `p` may be readied after the first unlock, but cannot leave its select before it has taken
        // every one of these locks again, so the list outlives this loop.
        for (std::size_t i = 0; i < many_count; ++i) many[i]->unlock();
      }
      if (!timed) {
        if (worker_.index() >= 0) {
          worker_.owe_deactivation();  // paid by the next wake-up here, or before this worker goes idle
        } else {
          run_.quiescence.deactivated();
        }
      }
      return;
    }
    case SwitchReason::Exit:
      p.transition(ProcessState::Running, ProcessState::Done);
      run_.retire(p, worker_);  // frees p
      return;
  }
}

namespace detail {
bool switch_directly(Process& p) { return WorkerThread::switch_directly(p); }
}  // namespace detail

}  // namespace kpn
