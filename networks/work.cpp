#include "networks/work.hpp"

#include <algorithm>
#include <array>
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

double measure_iterations_per_second() {
  using clock = std::chrono::steady_clock;
  std::uint64_t n = 1 << 16;
  // Grow the round until it lasts 10 ms, then time kRounds such rounds and take the median rate. Not the
  // fastest round: on a shared machine the loop's speed wanders by a few percent from one 10 ms to the
  // next, and a run's messages see the typical speed, not the best. On a KVM guest the fastest of seven
  // rounds overstated the speed of the next 0.6 s by 2.1 % on average, the median by 0.1 %
  // (docs/performance.md), so "1 us" of work took 1.02 us. The median also ignores a round the kernel
  // preempted.
  constexpr int kRounds = 7;
  std::array<double, kRounds> rates{};
  for (int round = 0; round < kRounds;) {
    const auto start = clock::now();
    volatile std::uint64_t sink = spin(n, static_cast<std::uint64_t>(round));
    (void)sink;
    const double s = std::chrono::duration<double>(clock::now() - start).count();
    if (s < 0.01) {
      n *= 2;
      continue;
    }
    rates[static_cast<std::size_t>(round)] = static_cast<double>(n) / s;
    ++round;
  }
  std::nth_element(rates.begin(), rates.begin() + kRounds / 2, rates.end());
  return rates[kRounds / 2];
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
