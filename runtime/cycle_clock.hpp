#pragma once
// The clock that times processes' runs (cpu_sampler.hpp) and the policies' short intervals. On x86 it is
// the time-stamp counter (about 10 ns, no system call; constant and invariant on every x86 CPU of the last
// 15 years);
// elsewhere steady_clock. A report's seconds use a ratio measured over the whole run (run.cpp); the
// thresholds in microseconds (a short run, a stale hand-off) use ticks_per_us(), measured once per program.

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace kpn::cycle_clock {

inline std::uint64_t now() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// Ticks per microsecond, measured once per program (100 us of spinning at the first call); at least 1.
std::uint64_t ticks_per_us();

}  // namespace kpn::cycle_clock
