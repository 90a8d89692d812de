#pragma once
// Wall-clock nanoseconds from steady_clock, for periods and time-outs measured in milliseconds (the
// local-deadlock scan, gp's drift windows). Not for per-switch accounting: that is cycle_clock.hpp.

#include <chrono>
#include <cstdint>

namespace kpn {

inline std::int64_t steady_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace kpn
