#include "runtime/timed_wait.hpp"

#include <array>
#include <cassert>

#include "runtime/blocking.hpp"
#include "runtime/current.hpp"
#include "runtime/process.hpp"
#include "runtime/run_shared.hpp"
#include "runtime/this_process.hpp"
#include "runtime/wait_record.hpp"

namespace kpn {

bool park_until(BusyWaitMutex& lock, Process*& slot, ChannelView* channel, WaitDirection direction,
                std::int64_t deadline_ns) {
  Process* self = current_process();
  assert(self != nullptr && "park_until() outside a process");
  assert(slot == nullptr && "a waiter slot has one waiter at most");
  if (self->held_reads_ != nullptr) [[unlikely]] {  // as park() (blocking.cpp): not a timeout
    lock.unlock();
    self->give_back_held_reads();
    return false;
  }
  if (self->must_unwind()) {
    lock.unlock();
    throw detail::Cancelled{};
  }
  RunShared& run = self->run_;
  TimerNode& node = self->timer_;
  node.process = self;
  node.park_lock = &lock;
  node.slot = &slot;
  // Queued while `lock` is held: a firer that pops it now finds the lock taken until this process is off
  // its stack (timer_queue.hpp), and then sees it in `slot`. Queued before the process is published in
  // the slot, so that a failed insertion (out of memory) leaves nothing behind; like a cancelled park, it
  // leaves with the lock released.
  bool earliest = false;
  try {
    earliest = run.timers.insert(node, deadline_ns);
  } catch (...) {
    lock.unlock();
    throw;
  }
  self->timed_out_ = false;
  self->timed_.store(true, std::memory_order_relaxed);
  self->wait_channel_.store(channel, std::memory_order_relaxed);
  self->wait_direction_.store(direction, std::memory_order_relaxed);
  slot = self;
  const WaitSite site{&lock, &slot};
  if (!self->wait_record_.publish(site, self->cancel_requested_)) {  // cancelled meanwhile (cancel.cpp)
    slot = nullptr;
    run.timers.remove(node);
    self->timed_.store(false, std::memory_order_relaxed);
    lock.unlock();
    throw detail::Cancelled{};
  }
  if (earliest) run.idle.timer_added(deadline_ns);
  self->release_after_switch_ = &lock;
  self->switch_to_worker(SwitchReason::Park);
  // Readied by the firer, by a waker or a canceller, or resumed by the teardown. After this, no firer
  // looks at the node.
  self->wait_record_.clear();
  run.timers.remove(node);
  self->timed_.store(false, std::memory_order_relaxed);
  if (self->cancel_ || self->cancel_requested()) {
    lock.lock();
    if (slot == self) slot = nullptr;
    lock.unlock();
    throw detail::Cancelled{};
  }
  return self->timed_out_;
}

void park_sleeping(std::int64_t deadline_ns) {
  Process* self = current_process();
  self->give_back_held_reads();  // here, not in park_until: a sleep returns at its deadline only
  BusyWaitMutex& lock = self->run_.sleep_lock;
  lock.lock();
  park_until(lock, self->sleep_slot_, nullptr, WaitDirection::None, deadline_ns);
}

void fire_due_timers(RunShared& run) {
  // Processes this call took out of their slots; readied once the queue's lock is dropped. A few per call
  // keeps the lock short; whatever is left is due at the next scheduling point.
  std::array<Process*, 16> fired;
  std::size_t count = 0;
  run.timers.pop_due(steady_ns(), [&](TimerNode& n) {
    if (count == fired.size() || !n.park_lock->try_lock()) return false;
    Process* p = n.process;
    if (*n.slot == p) {
      *n.slot = nullptr;
      // A select's timer competes with its channels' wakers for the claim (multi_wait.hpp).
      if (claim_waiter(p)) {
        p->timed_out_ = true;
        fired[count++] = p;
      }
    }
    // Otherwise a waker took it first and readies it; the node just goes.
    n.park_lock->unlock();
    return true;
  });
  for (std::size_t i = 0; i < count; ++i) unblock(fired[i]);
}

}  // namespace kpn
