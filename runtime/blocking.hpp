#pragma once
// The primitives a synchronisation object (a channel) uses to block and wake processes. Only for code
// that guards its wait condition with a BusyWaitMutex; user code reads and writes channels instead.

#include "runtime/busy_wait_mutex.hpp"
#include "runtime/channel_view.hpp"
#include "runtime/process_state.hpp"

namespace kpn {

class Process;

// Blocks the calling process. Preconditions: called from a process, with `lock` held; `slot` is the
// waiter slot guarded by `lock`, and empty. Publishes the caller in `slot`, switches to the worker, and the
// worker releases `lock` once the switch has completed, so a waker (who must take the process out of `slot`
// under `lock`) can never resume a process that is still on its stack. Returns, without `lock`, after
// someone called unblock() on it. While the network stops it throws detail::Cancelled instead, with `lock`
// released and `slot` cleared.
void park(BusyWaitMutex& lock, Process*& slot, ChannelView& channel, WaitDirection direction);

// Makes a parked process runnable. Precondition: the caller took `p` out of its waiter slot under the
// slot's lock (it owns `p` now). Call it after releasing that lock: it may touch scheduler queues. While the
// network stops it does nothing; the process is unwound where it sleeps.
void unblock(Process* p);

// Gives the CPU to other processes while a channel lock is held elsewhere (BusyWaitMutex only).
void yield_for_lock();

namespace detail {
// Thrown at a process's blocking points to unwind it when the network stops (a process failed, or a
// deadlock). Deliberately not a std::exception, so `catch (const std::exception&)` in user code does not
// swallow it; code that catches everything must rethrow it.
struct Cancelled {};
}  // namespace detail

}  // namespace kpn
