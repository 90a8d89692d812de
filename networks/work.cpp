#include "networks/work.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>

namespace kpn::work {
namespace {
std::atomic<double> g_t0{0};
std::mutex g_mutex;
}  // namespace

std::uint64_t spin(std::uint64_t iterations, std::uint64_t seed) noexcept {
  // The divisor is read through a volatile so the compiler cannot turn the division into a multiplication.
  volatile std::uint64_t divisor_source = 3;
  const std::uint64_t divisor = divisor_source;
  std::uint64_t x = seed | 0x8000000000000000ull;
  for (std::uint64_t i = 0; i < iterations; ++i) x = x / divisor + 0x5555555555555555ull + i;
  return x;
}

void burn(std::uint64_t iterations, std::uint64_t seed) noexcept {
  if (iterations == 0) return;
  volatile std::uint64_t sink = spin(iterations, seed);
  (void)sink;
}

TimedRounds timed_rounds() {
  using clock = std::chrono::steady_clock;
  TimedRounds t;
  t.iterations = 1 << 16;
  for (std::size_t round = 0; round < t.rates.size();) {
    const auto start = clock::now();
    volatile std::uint64_t sink = spin(t.iterations, round);
    (void)sink;
    const double s = std::chrono::duration<double>(clock::now() - start).count();
    if (s < 0.01) {
      t.iterations *= 2;
      continue;
    }
    t.rates[round] = static_cast<double>(t.iterations) / s;
    ++round;
  }
  return t;
}

double measure_iterations_per_second() {
  // The median rate, not the fastest: on a shared machine the loop's speed wanders by a few percent from
  // one 10 ms to the next, and a run's messages see the typical speed, not the best. On a KVM guest the
  // fastest of seven rounds overstated the speed of the next 0.6 s by 1.3 to 2.4 % (medians of 21, in two
  // spells), the median by 0.0 to 0.5 % (kpn-bench --only t0-bias, docs/performance.md).
  // The median also ignores a round the kernel preempted.
  std::array<double, 7> rates = timed_rounds().rates;
  std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
  return rates[rates.size() / 2];
}

double iterations_per_second() {
  double t0 = g_t0.load(std::memory_order_acquire);
  if (t0 > 0) return t0;
  std::lock_guard g(g_mutex);
  t0 = g_t0.load(std::memory_order_acquire);
  if (t0 > 0) return t0;
  t0 = measure_iterations_per_second();
  g_t0.store(t0, std::memory_order_release);
  return t0;
}

double known_iterations_per_second() noexcept { return g_t0.load(std::memory_order_acquire); }

void set_iterations_per_second(double t0) { g_t0.store(t0, std::memory_order_release); }

std::uint64_t iterations_for_us(double microseconds) {
  if (microseconds <= 0) return 0;
  const double n = microseconds * 1e-6 * iterations_per_second() + 0.5;
  // Saturate: a value past 2^64 (work_us: 1e300 is a valid number) cannot be converted, that would be
  // undefined behaviour; 2^64 - 1 iterations is centuries of CPU, as good as forever.
  if (!(n < 18446744073709551616.0)) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(n);
}

}  // namespace kpn::work
