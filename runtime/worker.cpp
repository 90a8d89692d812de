#include "runtime/worker.hpp"

#include <cassert>

#include "runtime/busy_wait_mutex.hpp"
#include "runtime/config.hpp"
#include "runtime/current.hpp"
#include "runtime/fault_handler.hpp"
#include "runtime/cycle_clock.hpp"
#include "runtime/log.hpp"
#include "runtime/pinning.hpp"
#include "runtime/process.hpp"
#include "runtime/run_state.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/asan.hpp"
#include "runtime/tsan.hpp"

namespace kpn {

Worker::Worker(RunState& run, int index, int pu)
    : run_(run),
      index_(index),
      pu_(pu),
      rng_(0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(index + 2)),
      last_tick_(cycle_clock::now()) {}

std::uint64_t Worker::next_random() noexcept {
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  return rng_ * 0x2545F4914F6CDD1Dull;
}

void Worker::thread_main() {
  const AltSignalStack signal_stack;  // for the stack-overflow report (fault_handler.hpp)
  detail::set_current_worker(this);
  if (pu_ >= 0 && run_.topology() != nullptr && !run_.topology()->pin_current_thread(pu_)) {
    log().warn("worker {}: could not pin to processing unit {}; running unpinned", index_, pu_);
  }
  Scheduler& scheduler = run_.scheduler();
  bool idle = false;
  last_tick_ = cycle_clock::now();
  int until_scan_check = config::kScanClockCheckEvery;
  while (!run_.stopping()) {
    if (run_.pause_requested()) {
      run_.pause_here();
      continue;
    }
    if (--until_scan_check == 0) {
      until_scan_check = config::kScanClockCheckEvery;
      run_.maybe_scan();
    }
    Process* p = scheduler.pick_next(*this);
    if (p == nullptr) {
      idle = true;  // since last_tick_: the end of the last process, or the start
      scheduler.on_idle(*this);
      continue;
    }
    if (idle) {
      idle = false;
      const std::uint64_t now = cycle_clock::now();
      WorkerCounters::bump(counters_.idle_ticks, now - last_tick_);
      last_tick_ = now;
    }
    run_process(*p);
  }
  if (idle) WorkerCounters::bump(counters_.idle_ticks, cycle_clock::now() - last_tick_);
  // Processes still queued stay READY; the runtime unwinds them after every worker has left.
  detail::set_current_worker(nullptr);
}

void Worker::run_process(Process& p) {
  assert(p.state() == ProcessState::Ready);
#if defined(KPN_DEBUG_CHECKS)
  const bool was_on_cpu = p.on_cpu_.exchange(true, std::memory_order_acq_rel);
  assert(!was_on_cpu && "a process must never run on two workers at once");
  (void)was_on_cpu;
#endif
  p.state_.store(ProcessState::Running, std::memory_order_relaxed);
  if (index_ >= 0) p.last_worker = index_;
  ++p.switches;
  WorkerCounters::bump(counters_.context_switches);
  detail::set_current_process(&p);
#if defined(KPN_TSAN)
  p.resumer_tsan_fiber_ = KPN_TSAN_CURRENT_FIBER();
  KPN_TSAN_SWITCH_TO(p.tsan_fiber_);
#endif
#if defined(KPN_ASAN)
  void* fake_stack = nullptr;
  KPN_ASAN_START_SWITCH(&fake_stack, static_cast<char*>(p.stack.sp) - p.stack.size, p.stack.size);
#endif
  p.context_ = std::move(p.context_).resume();
  // One clock read per switch: the process is charged from the end of the previous one (or of the idle
  // spell) to now, which includes picking it, a few tens of nanoseconds.
  const std::uint64_t now = cycle_clock::now();
  const std::uint64_t ran = now - last_tick_;
  last_tick_ = now;
#if defined(KPN_ASAN)
  KPN_ASAN_FINISH_SWITCH(fake_stack, nullptr, nullptr);
#endif
#if defined(KPN_TSAN)
  // A process that yields or parks announces the switch itself; an exiting one cannot (process.cpp).
  if (p.reason_ == SwitchReason::Exit) KPN_TSAN_SWITCH_TO(p.resumer_tsan_fiber_);
#endif
  detail::set_current_process(nullptr);
  p.cpu_ticks.store(p.cpu_ticks.load(std::memory_order_relaxed) + ran, std::memory_order_relaxed);
  WorkerCounters::bump(counters_.busy_ticks, ran);
  after_switch(p);
}

// Runs on this worker's stack once `p` has switched out: `p` can no longer be running, so it is now safe
// to let other workers see it (requeue, release the lock it parked under, or retire it).
void Worker::after_switch(Process& p) {
#if defined(KPN_DEBUG_CHECKS)
  p.on_cpu_.store(false, std::memory_order_release);
#endif
  switch (p.reason_) {
    case SwitchReason::Yield:
    case SwitchReason::LockYield:
      p.state_.store(ProcessState::Ready, std::memory_order_relaxed);
      if (index_ >= 0) run_.scheduler().on_yield(p, *this);  // the teardown helper re-finds it itself
      return;
    case SwitchReason::Park: {
      BusyWaitMutex* lock = p.release_after_switch_;
      p.release_after_switch_ = nullptr;
      p.state_.store(ProcessState::Blocked, std::memory_order_relaxed);
      // Everything above must be written before the unlock: from here on a waker may own `p`.
      lock->unlock();
      run_.process_parked();
      return;
    }
    case SwitchReason::Exit:
      p.state_.store(ProcessState::Done, std::memory_order_relaxed);
      run_.process_exited(p);  // frees p
      return;
  }
}

}  // namespace kpn
