#include "runtime/asymmetric_fence.hpp"

#include <exception>
#include <mutex>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace kpn {

namespace detail {
std::atomic<bool> g_membarrier_ready{false};
#if defined(KPN_TSAN)
std::atomic<unsigned> g_tsan_fence{0};
#endif
}  // namespace detail

namespace {

#if defined(__linux__) && !defined(KPN_TSAN)
long membarrier(int command) noexcept { return syscall(__NR_membarrier, command, 0, 0); }

bool register_membarrier() noexcept {
  const long commands = membarrier(MEMBARRIER_CMD_QUERY);
  if (commands < 0 || (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
  return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}
#else
bool register_membarrier() noexcept { return false; }
#endif

std::once_flag g_registration;

}  // namespace

void prepare_asymmetric_fences() noexcept {
  // call_once may throw only if the callable does; register_membarrier does not.
  std::call_once(g_registration, [] {
    if (register_membarrier()) detail::g_membarrier_ready.store(true, std::memory_order_release);
  });
}

void asymmetric_fence_heavy() noexcept {
#if defined(KPN_TSAN)
  detail::g_tsan_fence.fetch_add(1, std::memory_order_seq_cst);
#else
  prepare_asymmetric_fences();
#if defined(__linux__)
  if (detail::g_membarrier_ready.load(std::memory_order_acquire)) {
    // Our own thread's accesses are ordered by the fence below; the system call orders everyone else's.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
      std::atomic_thread_fence(std::memory_order_seq_cst);
      return;
    }
    // Registered but refused: cannot happen on a kernel that accepted the registration. Falling back to
    // a plain fence here would be unsound (light halves are compiler barriers), so stop loudly.
    std::terminate();
  }
#endif
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace kpn
