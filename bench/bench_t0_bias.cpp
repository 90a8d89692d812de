// t0-bias: how well a measured T0 (iterations of kpn::work per CPU second) predicts the speed the work loop
// then runs at. Each repetition measures T0 as a run does at start (kpn::work::measure_iterations_per_second,
// the median of seven 10 ms rounds), then times the loop over the next 0.6 s (sixty rounds), and reports
// the measured T0 over that speed: above 1, a run's "1 us" of work takes longer than 1 us. Beside it, from
// seven rounds of its own timed the same way, what the fastest round would have given (the estimator kpn
// used before 2026-12-05). On a quiet machine both are 1; on a shared one the speed wanders and the
// fastest round overstates it.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>

#include "benchmarks.hpp"
#include "networks/work.hpp"

namespace kpn_bench {
namespace {

// Iterations a round of about 10 ms runs, found as measure_iterations_per_second finds its round.
std::uint64_t round_of_10ms() {
  std::uint64_t n = 1 << 16;
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    kpn::work::burn(n, n);
    if (std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(10)) return n;
    n *= 2;
  }
}

// Seconds that `rounds` rounds of n iterations take, back to back; one entry per round in `each`.
template <std::size_t N>
void time_rounds(std::uint64_t n, std::array<double, N>& each) {
  for (std::size_t k = 0; k < N; ++k) {
    const auto start = std::chrono::steady_clock::now();
    kpn::work::burn(n, k);
    each[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
}

// Iterations per second over the next 60 rounds of n: the speed a run that follows the measurement sees.
double speed_that_follows(std::uint64_t n) {
  std::array<double, 60> each{};
  time_rounds(n, each);
  double total = 0;
  for (const double s : each) total += s;
  return static_cast<double>(n * each.size()) / total;
}

}  // namespace

Result bench_t0_bias(const Options& o) {
  pin_this_thread(first_allowed_cpus("t0-bias", 1)[0]);
  Result r;
  r.bench = "t0-bias";
  r.what = "a measured T0 over the work loop's speed in the 0.6 s that follow (1: exact; above 1: a run's work "
           "takes longer than asked)";
  const std::uint64_t n = round_of_10ms();
  Metric& measured = r.metric("measured_over_next", "x");
  Metric& median = r.metric("median_of_7_over_next", "x");
  Metric& fastest = r.metric("fastest_of_7_over_next", "x");
  for (int rep = 0; rep < o.reps; ++rep) {
    const double t0 = kpn::work::measure_iterations_per_second();
    measured.samples.push_back(t0 / speed_that_follows(n));
    std::array<double, 7> each{};
    time_rounds(n, each);
    std::sort(each.begin(), each.end());  // seconds: the fastest round first
    const double next = speed_that_follows(n);
    median.samples.push_back(static_cast<double>(n) / each[3] / next);
    fastest.samples.push_back(static_cast<double>(n) / each[0] / next);
  }
  r.config = {{"cpus", "1"}, {"round_iterations", std::to_string(n)}};
  return r;
}

}  // namespace kpn_bench
