#pragma once
// Where a parked process waits, so that a canceller (cancel.cpp) can take it out of its waiter slot the way
// a waker would. Each park writes its record and reads the cancel flag; a cancel is rare. So the process's
// side costs two plain stores, two plain loads and two compiler barriers per park, and the canceller pays
// for the ordering with an asymmetric fence's heavy half (asymmetric_fence.hpp).
//
// The protocol, beside blocking.hpp's park handshake:
//
//   process p:  holding its park lock L, publishes itself in the slot -> publish(): site = {L, slot}
//               (release), light fence, reads the cancel flag: raised -> clear(), takes itself out of the
//               slot, unwinds; otherwise switches out. Once it runs again, clear() first: site = null,
//               light fence, then waits until no canceller inspects it; then reads the flag: raised ->
//               unwinds.
//   canceller:  raises p's flag -> inspectors + 1 -> heavy fence -> reads site (acquire); if there is one,
//               try_locks its lock; if p is still in the slot, takes it out (for a select, wins the claim,
//               multi_wait.hpp) and will ready it -> unlock -> inspectors - 1 (release).
//
// No wake-up is lost (a Dekker pair, flag against site): either the canceller's read of the site comes
// after p's publish is visible to it (it then finds p in the slot, or finds that a waker took it first, and
// that waker readies it), or p's read of the flag after its fence sees the flag raised.
// No stale site is followed (a Dekker pair, inspectors against site): a site the canceller read stays
// valid while it inspects, because the clear() of that park has not yet looked at the inspectors, so by the
// fences it will see this canceller's + 1 and wait for its - 1 (and the site lives in the parking
// function's frame, which the process leaves only after clear()). A site read may be one of a later park
// than the flag's: that park's publish comes after the fence and sees the flag; harmless either way.
// The canceller only try_locks L (p holds L until it is off its stack, and may be waiting in clear() for the
// inspectors meanwhile): on failure it ends its inspection, yields and looks again, never waiting with the
// inspectors raised.

#include <atomic>

#include <sched.h>

#include "runtime/asymmetric_fence.hpp"
#include "runtime/config.hpp"
#include "runtime/cpu_relax.hpp"

namespace kpn {

class BusyWaitMutex;
class Process;

// The lock and waiter slot of one park; lives in the parking function's frame until the park's clear().
struct WaitSite {
  BusyWaitMutex* lock;
  Process** slot;
};

class WaitRecord {
 public:
  // By the process, holding site.lock, already in site.slot. False if it was asked to unwind: the record
  // is cleared again and the caller must leave the slot and unwind (a canceller that raised the flag
  // before this record was visible did not see it, so nobody else will wake it).
  bool publish(const WaitSite& site, const std::atomic<bool>& cancel_requested) noexcept {
    site_.store(&site, std::memory_order_release);
    asymmetric_fence_light();
    if (!cancel_requested.load(std::memory_order_relaxed)) [[likely]] return true;
    clear();
    return false;
  }

  // By the process once it runs again, before it takes any lock: from here on no canceller looks at the
  // wait it left.
  void clear() noexcept {
    site_.store(nullptr, std::memory_order_relaxed);
    asymmetric_fence_light();
    int spins = 0;
    while (inspectors_.load(std::memory_order_acquire) != 0) [[unlikely]] {
      if (++spins < config::kSpinsBeforeYield) {
        cpu_relax();
      } else {
        spins = 0;
        sched_yield();  // the canceller's thread may have been preempted
      }
    }
  }

  // By a canceller, which keeps the process alive meanwhile: begin, then one heavy fence (shared by all
  // the records it begins at once), then site(), then end. Never wait between begin and end.
  void begin_inspection() noexcept { inspectors_.fetch_add(1, std::memory_order_relaxed); }
  const WaitSite* site() const noexcept { return site_.load(std::memory_order_acquire); }
  void end_inspection() noexcept { inspectors_.fetch_sub(1, std::memory_order_release); }

 private:
  std::atomic<const WaitSite*> site_{nullptr};
  std::atomic<int> inspectors_{0};
};

}  // namespace kpn
