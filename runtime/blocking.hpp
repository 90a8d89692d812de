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
// Two extensions keep this rule: a process may wait in several slots at once (kpn::nondeterministic::select,
// multi_wait.hpp; the waker that takes it must also win its claim, claim_waiter), and a canceller takes a
// parked process out of its slot like a waker (cancel.cpp; the process records its wait for it, wait_record.hpp).

#include <cstdint>
#include <mutex>
#include <vector>

#include "runtime/busy_wait_mutex.hpp"
#include "runtime/cancelled.hpp"
#include "runtime/channel_view.hpp"
#include "runtime/export.hpp"
#include "runtime/external_wakers.hpp"
#include "runtime/process_state.hpp"

namespace kpn {

class Process;

// Blocks the calling process until someone takes it out of `slot` and unblocks it. Preconditions: called
// from a process; `held` owns the lock that guards `slot`; `slot` is empty. Returns with the lock held
// again. While the network stops it throws detail::Cancelled instead, with the lock released and `slot`
// cleared. `channel` and `direction` say what it waits for (deadlock detection and reports).
// It may also return at once, without having parked: a process that holds reads of a channel
// (held_reads.hpp) gives them back first, with the lock released, since the slots it frees may be what it
// waits for. Callers re-check their condition after park returns, as they do after any wake-up.
// The low-level form: `lock` held on entry, released on return.
KPN_EXPORT void park(BusyWaitMutex& lock, Process*& slot, ChannelView& channel, WaitDirection direction);
inline void park(std::unique_lock<BusyWaitMutex>& held, Process*& slot, ChannelView& channel,
                 WaitDirection direction) {
  BusyWaitMutex& lock = *held.release();
  park(lock, slot, channel, direction);
  held = std::unique_lock<BusyWaitMutex>(lock);
}

// Like park, but the run's timer also readies the process at `deadline_ns` (steady_ns) if nobody took it
// out of `slot` before. Returns true if the timer did (the wait timed out), false if a waker did; either
// way the caller re-checks its condition (a value may have arrived
// just as the timer fired: it is in the buffer, not lost). `channel` may be nullptr (a plain sleep).
//
// The race between the timer and a waker is decided by the one rule above: whoever takes the process out
// of `slot` under `lock` owns its wake-up. The firer (runtime/timer_queue.hpp) try_locks `lock`, and takes
// the process only if the slot still holds it; a waker that took it first readies it, and the firer drops
// the node. The lock is free only once the process is off its stack, so the firer, like a waker, never
// readies a process still running. The process removes its node from the timer queue (under the queue's
// lock) before it returns, so no firer looks at a node whose wait is over. A process in a timed wait stays
// counted as active (quiescence.hpp): its timer will ready it. The low-level form releases `lock` on
// return, as park does; the unique_lock form holds it again. It may return at once, as park may, after
// giving back held reads (false: not a timeout).
KPN_EXPORT bool park_until(BusyWaitMutex& lock, Process*& slot, ChannelView* channel, WaitDirection direction,
                std::int64_t deadline_ns);
inline bool park_until(std::unique_lock<BusyWaitMutex>& held, Process*& slot, ChannelView& channel,
                       WaitDirection direction, std::int64_t deadline_ns) {
  BusyWaitMutex& lock = *held.release();
  const bool timed_out = park_until(lock, slot, &channel, direction, deadline_ns);
  held = std::unique_lock<BusyWaitMutex>(lock);
  return timed_out;
}

// Makes a parked process runnable. Precondition: the caller took `p` out of its waiter slot under the
// slot's lock (it owns `p` now) and has released that lock. While the network stops it does nothing; the
// process is unwound where it sleeps.
KPN_EXPORT void unblock(Process* p);

// Called by whoever finds `p` in a waiter slot and takes it out, under the slot's lock: true if it is the
// one to ready it. Always true unless `p` waits in several slots at once (kpn::nondeterministic::select,
// multi_wait.hpp); then true for the first caller only, and the others just leave their slot empty.
KPN_EXPORT bool claim_waiter(Process* p) noexcept;

// The waiters a synchronisation object takes out of their slots under its lock, readied when the list is
// destroyed. Declare it before the lock guard, so that it outlives the guard and readies its waiters only
// once the lock is released (a channel operation wakes at most two: its counterpart and, rarely, a second).
class WakeList {
 public:
  WakeList() = default;
  WakeList(const WakeList&) = delete;
  WakeList& operator=(const WakeList&) = delete;
  ~WakeList() { wake_now(); }
  // Readies the waiters taken so far, now rather than at the end of the scope (the caller has released
  // the lock that guarded their slots); the list is empty afterwards.
  void wake_now() noexcept {
    for (int i = 0; i < count_; ++i) unblock(waiters_[i]);
    count_ = 0;
  }
  bool empty() const noexcept { return count_ == 0; }
  // Takes the waiter out of `slot`, if any. The caller holds the lock that guards `slot`.
  void take(Process*& slot) noexcept {
    if (slot != nullptr && count_ < kMax) {
      Process* p = slot;
      slot = nullptr;
      if (claim_waiter(p)) waiters_[count_++] = p;
    }
  }

 private:
  static constexpr int kMax = 2;
  Process* waiters_[kMax] = {};
  int count_ = 0;
};

// WakeList for a thread that is not one of the run's (a library's own thread, such as the distributed
// layer's communication thread): such a thread is not joined by the run, so each waiter it takes passes the
// run's gate of external wakers (external_wakers.hpp), which the run closes and waits for before it unwinds
// its processes and returns. take() under the slot's lock, as WakeList's; the waiters are readied by
// wake() (or the destructor), which the thread may put off until it has released its own locks too: a
// woken worker may preempt it on its CPU.
class KPN_EXPORT ForeignWakeList {
 public:
  ForeignWakeList() = default;
  ForeignWakeList(const ForeignWakeList&) = delete;
  ForeignWakeList& operator=(const ForeignWakeList&) = delete;
  ~ForeignWakeList() { wake(); }
  // Leaves the waiter in its slot if its run is past its end (the run unwinds it). Throws std::bad_alloc
  // before it touches the slot.
  void take(Process*& slot);
  void wake() noexcept;

 private:
  struct Entry {
    Process* process;
    ExternalWakers* gate;
  };
  std::vector<Entry> waiters_;
};

}  // namespace kpn
