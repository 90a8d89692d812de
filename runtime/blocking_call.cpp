#include "runtime/blocking_call.hpp"

// The handshake of a blocking call, blocking.hpp's park with a pool thread as the waker:
//   process, holding the call's lock:  publishes itself in the call's waiter slot -> queues the job on the
//                                      pool -> timed_ = true (stays active) -> switches to its worker,
//                                      lock still held;
//   its worker, after the switch:      BLOCKED, then releases the lock (active is not lowered: timed_);
//   pool thread:                       runs f (result or exception into the caller's frame) -> takes the
//                                      lock -> takes the waiter out of the slot -> releases the lock ->
//                                      unblock: READY, the policy's on_unblock with no waker worker.
// The pool thread can take the lock only once the process is off its stack, so a call that returns at
// once still never readies a running process, and no wake-up is lost (the slot is filled before the job
// is queued). The process's frame is the pool thread's until unblock returns; while the run stops, unblock
// does nothing and the teardown resumes the process (to unwind it) only after BlockingPool::wait_idle,
// that is after every job has returned from run_call.

#include <cassert>

#include "runtime/blocking.hpp"
#include "runtime/blocking_pool.hpp"
#include "runtime/busy_wait_mutex.hpp"
#include "runtime/cancelled.hpp"
#include "runtime/current.hpp"
#include "runtime/process.hpp"
#include "runtime/run_shared.hpp"

namespace kpn {

namespace {

// One call in flight, on the parked process's stack. `waiter` is its waiter slot, guarded by `lock`.
struct CallJob : BlockingJob {
  void (*invoke)(void*, std::stop_token) noexcept = nullptr;
  void* context = nullptr;
  BusyWaitMutex lock;
  Process* waiter = nullptr;
};

// On a pool thread. The waker's half of the park handshake (blocking.hpp): take the waiter out of its slot
// under the lock, then ready it. The lock is free only once the process is off its stack (its worker
// releases it after the switch), so the process is never readied while still running, and a call that
// returns before its process has finished parking waits here for the switch instead of being lost.
void run_call(BlockingJob& job) noexcept {
  auto& call = static_cast<CallJob&>(job);
  call.invoke(call.context, call.stop);
  call.lock.lock();
  Process* p = call.waiter;
  call.waiter = nullptr;
  call.lock.unlock();
  // `call` may be gone from here on only if `p` runs again, which takes this unblock or, while the run
  // stops, the teardown, which first waits for this job to end (BlockingPool::wait_idle).
  unblock(p);
}

}  // namespace

void park_for_call(BusyWaitMutex& lock, Process*& slot, BlockingPool& pool, BlockingJob& job) {
  Process* self = current_process();
  self->give_back_held_reads();  // before it blocks (held_reads.hpp)
  lock.lock();
  slot = self;
  try {
    // Under `lock`: a pool thread that finishes the call at once waits for the switch below.
    pool.submit(job);
  } catch (...) {
    slot = nullptr;
    lock.unlock();
    throw;
  }
  // Something other than a channel readies the process: it stays active and out of deadlock analysis,
  // like a timed waiter (process.hpp, quiescence.hpp). Read by its worker after the switch and by its waker.
  self->timed_.store(true, std::memory_order_relaxed);
  self->wait_channel_.store(nullptr, std::memory_order_relaxed);
  self->wait_direction_.store(WaitDirection::None, std::memory_order_relaxed);
  self->release_after_switch_ = &lock;
  self->switch_to_worker(SwitchReason::Park);
  // Readied by the pool thread, or resumed by the teardown once the call has ended (wait_idle): either
  // way the pool thread has emptied the slot and no longer touches the job.
  self->timed_.store(false, std::memory_order_relaxed);
  // A cancel request made during the call takes effect now that it has returned (its result is dropped).
  if (self->cancel_ || self->cancel_requested()) throw detail::Cancelled{};
}

namespace detail {

void run_blocking(void (*invoke)(void*, std::stop_token) noexcept, void* context, bool interruptible) {
  Process* self = current_process();
  assert(self != nullptr && "run_blocking() outside a process");
  if (self->must_unwind()) throw Cancelled{};
  CallJob job;
  job.run = &run_call;
  job.invoke = invoke;
  job.context = context;
  job.interruptible = interruptible;
  job.caller = self->id();
  park_for_call(job.lock, job.waiter, current_run()->blocking, job);
}

}  // namespace detail

}  // namespace kpn
