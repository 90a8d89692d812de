#pragma once
// The lock that guards a channel (the Nornir paper, section 3). A process that finds it taken does not spin its
// kernel thread: it yields to its worker, which runs other processes and retries this one later. Outside a
// process (a destructor run while the network is torn down), or while the network stops, it spins instead;
// nobody holds a channel lock across a switch, so the holder is always running and the wait is short.

#include <atomic>

#include "runtime/export.hpp"

namespace kpn {

class KPN_EXPORT BusyWaitMutex {
 public:
  void lock() {
    if (try_lock()) return;
    lock_contended();
  }
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  void lock_contended();
  std::atomic<bool> locked_{false};
};

}  // namespace kpn
