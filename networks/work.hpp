#pragma once
// The unit of CPU work of the Nornir paper: a loop of dependent 64-bit integer divisions. T0 is the number of loop
// iterations that take one CPU second on this machine; w seconds of work are w * T0 iterations.

#include <array>
#include <cstdint>

#include "runtime/export.hpp"

namespace kpn::work {

// Runs `iterations` divisions; the result depends on every one (so none can be optimised away).
KPN_EXPORT std::uint64_t spin(std::uint64_t iterations, std::uint64_t seed) noexcept;
// spin() for its cost alone: the result is consumed here.
KPN_EXPORT void burn(std::uint64_t iterations, std::uint64_t seed) noexcept;

// T0 for this machine, measured on first use (about 0.1 s) unless set_iterations_per_second() set it.
KPN_EXPORT double iterations_per_second();
// Uses a known T0 instead of measuring (for example the one a sweep measured once for all its runs).
KPN_EXPORT void set_iterations_per_second(double t0);
// T0 if it has been measured or set, else 0 (does not measure).
KPN_EXPORT double known_iterations_per_second() noexcept;
// Measures T0 now, regardless of any set value: the median rate of timed_rounds().
KPN_EXPORT double measure_iterations_per_second();

// The rounds a T0 measurement times: `iterations` per round, grown until a round lasts 10 ms, and each
// round's rate in iterations per second, in the order they ran. For kpn-bench's look at the estimator.
struct TimedRounds {
  std::uint64_t iterations = 0;
  std::array<double, 7> rates{};
};
KPN_EXPORT TimedRounds timed_rounds();

// Iterations for `microseconds` of work at the current T0.
KPN_EXPORT std::uint64_t iterations_for_us(double microseconds);

}  // namespace kpn::work
