#pragma once
// The pause hint for spin loops: lets the sibling hyper-thread run and avoids the memory-order machine
// clear when the spun-on line changes.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace kpn {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace kpn
