#pragma once
// A store-load fence split in two: a cheap half for the side that runs all the time (a process parking)
// and an expensive half for the side that runs rarely (a canceller), after Linux's membarrier(2) and
// Folly's asymmetric_thread_fence_light / _heavy.
//
// Guarantee: for a light fence L in one thread and a heavy fence H in another, either everything written
// before L is visible to what is read after H, or everything written before H is visible to what is read
// after L; so the pattern "store A; fence; load B" against "store B; fence; load A" never has both loads
// miss the other side's store (Dekker), with one side paying almost nothing.
//
// How: where the kernel has membarrier's private expedited command (Linux 4.14+, registered once per
// program by prepare_asymmetric_fences), the light half is a compiler barrier and the heavy half makes
// every CPU that runs a thread of this program execute a full barrier (an IPI; a thread that is not
// running passes one when it is switched back in). Elsewhere both halves are a sequentially consistent
// fence: correct, only slower. Under ThreadSanitizer, which knows neither membarrier nor fences, both halves
// are a read-modify-write of one shared atomic: such operations are totally ordered, and the later one
// synchronizes with the earlier, which orders the two sides' stores and loads the same way, in terms the
// race detector understands.
// The choice is made once and never changes back: a light half that saw "no membarrier" used a real
// fence, which is always enough.

#include <atomic>

#include "runtime/sanitizers.hpp"

namespace kpn {

namespace detail {
// Set once, after the registration succeeded, before any heavy half relies on it.
extern std::atomic<bool> g_membarrier_ready;
#if defined(KPN_TSAN)
extern std::atomic<unsigned> g_tsan_fence;
#endif
}  // namespace detail

// Registers this program for membarrier (idempotent, thread-safe). Called when a Runtime is created, so
// that the light halves of a run are compiler barriers from its start.
void prepare_asymmetric_fences() noexcept;

inline void asymmetric_fence_light() noexcept {
#if defined(KPN_TSAN)
  detail::g_tsan_fence.fetch_add(1, std::memory_order_seq_cst);
#else
  if (detail::g_membarrier_ready.load(std::memory_order_relaxed)) [[likely]] {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// A system call where membarrier is used (microseconds on a VM): for rare paths only.
void asymmetric_fence_heavy() noexcept;

}  // namespace kpn
