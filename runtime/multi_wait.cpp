#include "runtime/multi_wait.hpp"

#include <cassert>

#include "runtime/blocking.hpp"
#include "runtime/busy_wait_mutex.hpp"
#include "runtime/cancelled.hpp"
#include "runtime/current.hpp"
#include "runtime/process.hpp"
#include "runtime/run_shared.hpp"
#include "runtime/wait_record.hpp"

namespace kpn {

void lock_all(const std::vector<BusyWaitMutex*>& locks) {
  std::size_t start = 0;  // the lock to wait for first: the one found busy last time
  for (;;) {
    locks[start]->lock();
    std::size_t busy = locks.size();
    for (std::size_t i = 0; i < locks.size(); ++i) {
      if (i == start) continue;
      if (!locks[i]->try_lock()) {
        busy = i;
        break;
      }
    }
    if (busy == locks.size()) return;
    // Drop what is held (the lock that was busy excepted, not held), then wait for the busy one alone.
    for (std::size_t i = 0; i < busy; ++i) {
      if (i != start) locks[i]->unlock();
    }
    locks[start]->unlock();
    start = busy;
  }
}

void unlock_all(const std::vector<BusyWaitMutex*>& locks) noexcept {
  for (BusyWaitMutex* l : locks) l->unlock();
}

BusyWaitMutex& timer_lock() { return current_run()->sleep_lock; }

namespace {

// Takes the process out of every slot of `wait` that still holds it. Under every lock of the wait.
void leave_slots(Process* self, MultiWait& wait, bool timed, Process*& sleep_slot) noexcept {
  for (const WaitSlot& s : wait.slots) {
    if (*s.slot == self) *s.slot = nullptr;
  }
  if (timed && sleep_slot == self) sleep_slot = nullptr;
}

}  // namespace

bool park_any(MultiWait& wait, std::int64_t deadline_ns) {
  Process* self = current_process();
  assert(self != nullptr && "park_any() outside a process");
  assert(!wait.slots.empty());
  assert(self->held_reads_ == nullptr && "select gives back held reads before it takes the locks");
  if (self->must_unwind()) {
    unlock_all(wait.locks);
    throw detail::Cancelled{};
  }
  RunShared& run = self->run_;
  const bool timed = deadline_ns != kNoDeadline;
  TimerNode& node = self->timer_;
  bool earliest = false;
  if (timed) {
    node.process = self;
    node.park_lock = &run.sleep_lock;
    node.slot = &self->sleep_slot_;
    try {
      earliest = run.timers.insert(node, deadline_ns);
    } catch (...) {
      unlock_all(wait.locks);
      throw;
    }
  }
  // Every lock is held: no waker can look at the claim or the slots until the worker releases them.
  self->select_.claimed.store(false, std::memory_order_relaxed);
  self->select_.wait.store(&wait, std::memory_order_relaxed);
  self->timed_out_ = false;
  self->timed_.store(timed, std::memory_order_relaxed);
  self->wait_channel_.store(nullptr, std::memory_order_relaxed);
  self->wait_direction_.store(WaitDirection::None, std::memory_order_relaxed);
  for (const WaitSlot& s : wait.slots) {
    assert(*s.slot == nullptr && "a channel side has one waiter at most");
    *s.slot = self;
  }
  if (timed) self->sleep_slot_ = self;
  // A canceller wakes the process through its first slot, as a waker of that channel would.
  const WaitSite site{wait.slots.front().lock, wait.slots.front().slot};
  if (!self->wait_record_.publish(site, self->cancel_requested_)) {
    leave_slots(self, wait, timed, self->sleep_slot_);
    self->select_.wait.store(nullptr, std::memory_order_relaxed);
    if (timed) run.timers.remove(node);
    self->timed_.store(false, std::memory_order_relaxed);
    unlock_all(wait.locks);
    throw detail::Cancelled{};
  }
  if (earliest) run.idle.timer_added(deadline_ns);
  self->release_after_switch_ = nullptr;  // the worker releases the list below instead
  self->select_.release_many = wait.locks.data();
  self->select_.release_many_count = wait.locks.size();
  self->switch_to_worker(SwitchReason::Park);
  // Readied by the one waker that won the claim, or resumed by the teardown.
  self->wait_record_.clear();
  if (timed) run.timers.remove(node);
  self->timed_.store(false, std::memory_order_relaxed);
  // Waits, if need be, for the worker to release the last lock of the park; then no waker is left in any
  // slot, and losers of the claim find the slots empty.
  lock_all(wait.locks);
  leave_slots(self, wait, timed, self->sleep_slot_);
  self->select_.wait.store(nullptr, std::memory_order_relaxed);
  unlock_all(wait.locks);
  if (self->cancel_ || self->cancel_requested()) throw detail::Cancelled{};
  return self->timed_out_;
}

}  // namespace kpn
