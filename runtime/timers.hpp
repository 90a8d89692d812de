#pragma once
// Timers for processes: kpn::sleep_for and kpn::sleep_until park the calling process (not its worker) until
// a steady_clock deadline; the worker runs other processes meanwhile. A sleeping process is not blocked in
// the deadlock sense: a network of sleepers is not deadlocked, and ends when they do. While the network
// stops (end, failure, interrupt, deadlock), a sleep is unwound like a blocked read (detail::Cancelled).
//
// Deadlines also bound channel waits (Reader::read_for, Writer::write_for, channels/endpoints.hpp). How a
// timer fires is in runtime/timer_queue.hpp; how a sleeping worker wakes for it, in runtime/idle_workers.hpp.
//
// Time makes a program depend on scheduling: a process that sleeps still computes the same values, but a
// process that decides by the clock (or by a timeout) is no longer a Kahn process (docs/api.md).

#include <chrono>
#include <cstdint>
#include <limits>

#include "runtime/export.hpp"

namespace kpn {

namespace detail {
// The calling process sleeps until `deadline_ns` (steady_clock nanoseconds since its epoch). From a process
// only (std::logic_error otherwise); a deadline already passed yields.
KPN_EXPORT void sleep_until_ns(std::int64_t deadline_ns);
// std::invalid_argument naming the negative duration (in nanoseconds, printed in a readable unit).
[[noreturn]] KPN_EXPORT void throw_negative_duration(const char* what, std::int64_t ns);
// Now plus `ns`, saturated below the largest deadline.
KPN_EXPORT std::int64_t deadline_after_ns(std::int64_t ns) noexcept;

// A duration as nanoseconds, saturated (a wait of hours::max() is "forever", not an overflow). Negative
// durations are `what`'s error.
template <class Rep, class Period>
std::int64_t checked_ns(const char* what, std::chrono::duration<Rep, Period> d) {
  using ns = std::chrono::duration<long double, std::nano>;
  const long double count = std::chrono::duration_cast<ns>(d).count();
  constexpr auto kMax = static_cast<long double>(std::numeric_limits<std::int64_t>::max() / 2);
  if (count < 0) {
    throw_negative_duration(what, count < -kMax ? std::numeric_limits<std::int64_t>::min()
                                                : static_cast<std::int64_t>(count));
  }
  return count > kMax ? static_cast<std::int64_t>(kMax) : static_cast<std::int64_t>(count);
}

template <class Duration>
std::int64_t steady_deadline_ns(std::chrono::time_point<std::chrono::steady_clock, Duration> t) noexcept {
  using ns = std::chrono::duration<long double, std::nano>;
  const long double count = std::chrono::duration_cast<ns>(t.time_since_epoch()).count();
  constexpr auto kMax = static_cast<long double>(std::numeric_limits<std::int64_t>::max() / 2);
  return count > kMax ? static_cast<std::int64_t>(kMax) : count < 0 ? 0 : static_cast<std::int64_t>(count);
}
}  // namespace detail

// Parks the calling process for at least `d`. std::invalid_argument if `d` is negative; zero yields.
template <class Rep, class Period>
void sleep_for(std::chrono::duration<Rep, Period> d) {
  detail::sleep_until_ns(detail::deadline_after_ns(detail::checked_ns("kpn::sleep_for", d)));
}

// Parks the calling process until `t` (a time already passed yields).
template <class Duration>
void sleep_until(std::chrono::time_point<std::chrono::steady_clock, Duration> t) {
  detail::sleep_until_ns(detail::steady_deadline_ns(t));
}

}  // namespace kpn
