#include "runtime/timers.hpp"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "runtime/cancelled.hpp"
#include "runtime/current.hpp"
#include "runtime/process.hpp"
#include "runtime/steady_time.hpp"
#include "runtime/this_process.hpp"
#include "runtime/timed_wait.hpp"

namespace kpn::detail {

void sleep_until_ns(std::int64_t deadline_ns) {
  Process* self = current_process();
  if (self == nullptr) throw std::logic_error("kpn::sleep_for / kpn::sleep_until may only be called from a kpn process");
  if (self->must_unwind()) throw Cancelled{};
  if (deadline_ns <= steady_ns()) {
    yield();
    return;
  }
  park_sleeping(deadline_ns);
}

void throw_negative_duration(const char* what, std::int64_t ns) {
  std::string shown;
  if (ns % 1'000'000'000 == 0) {
    shown = fmt::format("{} s", ns / 1'000'000'000);
  } else if (ns % 1'000'000 == 0) {
    shown = fmt::format("{} ms", ns / 1'000'000);
  } else if (ns % 1'000 == 0) {
    shown = fmt::format("{} us", ns / 1'000);
  } else {
    shown = fmt::format("{} ns", ns);
  }
  throw std::invalid_argument(fmt::format("{}: negative duration {} (a wait must be zero or longer)", what, shown));
}

std::int64_t deadline_after_ns(std::int64_t ns) noexcept {
  const std::int64_t now = steady_ns();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 2;
  return ns > kMax - now ? kMax : now + ns;
}

}  // namespace kpn::detail
