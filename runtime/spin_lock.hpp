#pragma once
// The kernel-thread lock of a run-queue. Critical sections are a few loads and stores, so a waiter spins
// (test-and-test-and-set with a pause) rather than sleeping; after config::kSpinsBeforeYield spins it calls
// sched_yield, because with more workers than CPUs the holder's thread may have been preempted.
// Not for channels: a channel lock must yield the *process*, see busy_wait_mutex.hpp.

#include <atomic>

#include <sched.h>

#include "runtime/config.hpp"
#include "runtime/cpu_relax.hpp"

namespace kpn {

class SpinLock {
 public:
  void lock() noexcept {
    for (;;) {
      if (!locked_.exchange(true, std::memory_order_acquire)) return;
      int spins = 0;
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins < config::kSpinsBeforeYield) {
          cpu_relax();
        } else {
          spins = 0;
          sched_yield();
        }
      }
    }
  }
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace kpn
