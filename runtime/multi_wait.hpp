#pragma once
// Waiting on several channels at once (kpn::nondeterministic::select, channels/select.hpp): blocking.hpp's
// park, with the process published in several waiter slots, each under its own lock.
//
// The handshake, extended:
//   process, holding every lock of the wait: resets its claim -> publishes itself in every slot (and, with
//                                a deadline, in its sleep slot under the run's sleep lock, for the timer)
//                                -> switches to its worker, all locks still held;
//   its worker, after the switch:  BLOCKED, then releases the locks one by one;
//   a waker (channel, timer firer or canceller), holding one lock: finds the process in that lock's slot,
//                                takes it out, and readies it only if it wins the claim (claim_waiter: the
//                                first compare-exchange of SelectState::claimed wins); a loser just leaves the
//                                slot empty, the winner readies the process;
//   the process, once it runs:     takes every lock again, takes itself out of every slot still holding
//                                it, clears its wait, releases the locks, then returns to re-check which
//                                channel is ready.
// Exactly one party readies the process (the claim), none before it is off its stack (each waker needs a
// lock the worker releases only after the switch), and none is lost (a waker either finds the process in
// its slot or ran before the process took that lock, and then the process sees the channel ready). A late
// waker cannot touch a later wait by mistake: the claim is reset only while the process holds every lock,
// and a waker reads it under one of them. The lock list lives in the select's frame, which the process
// leaves only after taking every lock again, so the worker that releases them never reads a freed list.
//
// Locks are taken all at once without ever waiting while holding one (lock_all: the first with lock(),
// the others with try_lock, all dropped and the busy one awaited alone on failure), so a process never
// holds a channel lock across a switch other than its park, as busy_wait_mutex.hpp expects.

#include <cstdint>
#include <vector>

#include "runtime/channel_view.hpp"
#include "runtime/process_state.hpp"

namespace kpn {

class BusyWaitMutex;
class Process;

// One slot of a multi-slot wait: the channel end's waiter slot and the lock that guards it.
struct WaitSlot {
  BusyWaitMutex* lock = nullptr;
  Process** slot = nullptr;
  ChannelView* channel = nullptr;
  WaitDirection direction = WaitDirection::None;
};

struct MultiWait {
  std::vector<WaitSlot> slots;        // distinct slots, at least one
  std::vector<BusyWaitMutex*> locks;  // distinct; with a deadline, includes timer_lock()
};

// Takes every lock of `locks` (distinct), never waiting while holding one.
void lock_all(const std::vector<BusyWaitMutex*>& locks);
void unlock_all(const std::vector<BusyWaitMutex*>& locks) noexcept;

// The lock a timed multi-slot wait adds to its locks (the run's sleep lock). From a process only.
BusyWaitMutex& timer_lock();

// Parks the calling process in every slot of `wait` until a waker takes it out of one, or until
// `deadline_ns` (steady_ns; kNoDeadline for none). Preconditions: every lock of wait.locks is held (with a
// deadline, timer_lock() among them) and no slot holds anyone. Returns with every lock released and
// every slot empty: true if the deadline passed (the caller re-checks its channels either way). While the
// network stops or the process is cancelled, throws detail::Cancelled instead, with the same postcondition.
inline constexpr std::int64_t kNoDeadline = -1;
bool park_any(MultiWait& wait, std::int64_t deadline_ns);

}  // namespace kpn
