#pragma once
// The lock that guards a channel (the Nornir paper, section 3). A process that finds it taken does not spin its
// kernel thread: it yields to its worker, which runs other processes and retries this one later. Outside a
// process (a destructor run while the network is torn down), or while the network stops, it spins instead;
// nobody holds a channel lock across a switch, so the wait is short. Either way the waiting thread gives
// its CPU away now and then (sched_yield): the holder may be a thread waiting for that CPU (lock_contended).

#include <atomic>

#include "runtime/export.hpp"

namespace kpn {

class KPN_EXPORT BusyWaitMutex {
 public:
  // The first attempt exchanges at once. A channel's lock is usually free, and its line was often last
  // written on the other CPU (a message that crosses): an exchange fetches the line for writing in one
  // cross-CPU transaction, while a load first fetches it shared and the exchange then has to take it
  // exclusive, a second one (on the Zen 5 host of docs/performance-log.md, session 36, the load took a
  // sixth to a quarter of Channel::read's and write's samples at 1 us). A waiter that found it taken
  // retries with try_lock, which looks before it writes, so it does not keep pulling the holder's line.
  void lock() {
    if (!locked_.exchange(true, std::memory_order_acquire)) return;
    lock_contended();
  }
  // Looks before it writes: for the retries and for callers that test many locks (select, cancellation).
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  void lock_contended();
  std::atomic<bool> locked_{false};
};

}  // namespace kpn
