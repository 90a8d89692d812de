#pragma once
// The one way a process blocks and the one way it is woken, for code that guards a wait condition with a
// BusyWaitMutex (a channel kind); user code reads and writes channels instead.
//
// The handshake (Go's gopark(unlockf, lock), Boost.Fiber's context::resume(spinlock_lock&)):
//   blocker, holding the lock:   sees the condition false -> publishes itself in the waiter slot ->
//                                switches to its worker, lock still held;
//   its worker, after the switch has completed: BLOCKED, then releases the lock;
//   waker, holding the lock:     changes the condition -> takes the waiter out of the slot (WakeList) ->
//                                releases the lock -> readies the waiter (unblock: READY, to the policy).
// The waker can take the waiter only under the lock, and the lock is free only once the blocker is off
// its stack, so a woken process is never still running, and no wake-up is lost: a waker either sees the
// slot filled (and wakes) or ran before the blocker took the lock (and the blocker sees the condition true).

#include <mutex>

#include "runtime/busy_wait_mutex.hpp"
#include "runtime/cancelled.hpp"
#include "runtime/channel_view.hpp"
#include "runtime/process_state.hpp"

namespace kpn {

class Process;

// Blocks the calling process until someone takes it out of `slot` and unblocks it. Preconditions: called
// from a process; `held` owns the lock that guards `slot`; `slot` is empty. Returns with the lock held
// again. While the network stops it throws detail::Cancelled instead, with the lock released and `slot`
// cleared. `channel` and `direction` say what it waits for (deadlock detection and reports).
// The low-level form: `lock` held on entry, released on return.
void park(BusyWaitMutex& lock, Process*& slot, ChannelView& channel, WaitDirection direction);
inline void park(std::unique_lock<BusyWaitMutex>& held, Process*& slot, ChannelView& channel,
                 WaitDirection direction) {
  BusyWaitMutex& lock = *held.release();
  park(lock, slot, channel, direction);
  held = std::unique_lock<BusyWaitMutex>(lock);
}

// Makes a parked process runnable. Precondition: the caller took `p` out of its waiter slot under the
// slot's lock (it owns `p` now) and has released that lock. While the network stops it does nothing; the
// process is unwound where it sleeps.
void unblock(Process* p);

// The waiters a synchronisation object takes out of their slots under its lock, readied when the list is
// destroyed. Declare it before the lock guard, so that it outlives the guard and readies its waiters only
// once the lock is released (a channel operation wakes at most two: its counterpart and, rarely, a second).
class WakeList {
 public:
  WakeList() = default;
  WakeList(const WakeList&) = delete;
  WakeList& operator=(const WakeList&) = delete;
  ~WakeList() {
    for (int i = 0; i < count_; ++i) unblock(waiters_[i]);
  }
  // Takes the waiter out of `slot`, if any. The caller holds the lock that guards `slot`.
  void take(Process*& slot) noexcept {
    if (slot != nullptr && count_ < kMax) {
      waiters_[count_++] = slot;
      slot = nullptr;
    }
  }

 private:
  static constexpr int kMax = 2;
  Process* waiters_[kMax] = {};
  int count_ = 0;
};

}  // namespace kpn
