#include "runtime/cycle_clock.hpp"

namespace kpn::cycle_clock {

std::uint64_t ticks_per_us() {
  static const std::uint64_t ticks = [] {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(100)) {
    }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    const double per_us = static_cast<double>(now() - c0) / us;
    return per_us >= 1 ? static_cast<std::uint64_t>(per_us) : std::uint64_t{1};
  }();
  return ticks;
}

}  // namespace kpn::cycle_clock
