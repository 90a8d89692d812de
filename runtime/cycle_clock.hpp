#pragma once
// The clock read on every context switch to charge CPU time to processes. On x86 it is the time-stamp
// counter (about 10 ns, no system call; constant and invariant on every x86 CPU of the last 15 years);
// elsewhere steady_clock. Ticks become seconds with a ratio measured over the whole run (run.cpp),
// so no start-up calibration delay is needed.

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

}  // namespace kpn::cycle_clock
