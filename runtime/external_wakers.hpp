#pragma once
// The gate of a run's external wakers: threads that are not the run's own (a library's thread, such as the
// distributed layer's communication thread) and ready its processes (ForeignWakeList, blocking.hpp). Such
// a thread is not joined by the run, so without the gate it could still be inside unblock (touching the
// process, the policy's queues, the idle workers) while the run unwinds and frees its processes, or after
// the run has returned.
//
// The protocol (a Dekker pair, count against closed, both sequentially consistent):
//   waker:  count + 1, then reads closed: set -> count - 1 and leave the waiter where it is (the run
//           unwinds it); otherwise take the waiter out of its slot (under the slot's lock), unblock it,
//           then count - 1.
//   run:    once its workers have left, closed = true, then waits until count == 0; only then does it
//           unwind what is left, and return.
// Either the waker's read comes after the run's store (it backs off), or the run's read of count comes
// after the waker's increment (the run waits for it). A waker that entered touches the process and the
// run only between its enter and its leave, so never after the run has moved on.

#include <atomic>
#include <thread>

namespace kpn {

class ExternalWakers {
 public:
  bool enter() noexcept {
    count_.fetch_add(1, std::memory_order_seq_cst);
    if (!closed_.load(std::memory_order_seq_cst)) return true;
    leave();
    return false;
  }
  void leave() noexcept { count_.fetch_sub(1, std::memory_order_release); }
  // By the run, after its workers have left: no external waker enters from here on, and those inside
  // have left when this returns (their unblock does nothing while the run stops: the run's stop flag).
  void close_and_wait() noexcept {
    closed_.store(true, std::memory_order_seq_cst);
    while (count_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  }

 private:
  std::atomic<int> count_{0};
  std::atomic<bool> closed_{false};
};

}  // namespace kpn
