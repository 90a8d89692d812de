// t0-bias: how well a measured T0 (iterations of kpn::work per CPU second) predicts the speed the work loop
// then runs at. Each repetition times the rounds a run's measurement times (kpn::work::timed_rounds, seven
// rounds of about 10 ms), then times the loop over the next 0.6 s (sixty such rounds), and reports two
// estimates from the same rounds over that speed: their median, which is what kpn::work takes as T0, and
// their fastest, which it took before 2026-12-05. Above 1, a run's "1 us" of work takes longer than 1 us.
// On a quiet machine both are 1; on a shared one the speed wanders and the fastest round overstates it.

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "benchmarks.hpp"
#include "networks/work.hpp"

namespace kpn_bench {
namespace {

// Iterations per second over the next 60 rounds of n: the speed a run that follows the measurement sees.
double speed_that_follows(std::uint64_t n) {
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t k = 0; k < 60; ++k) kpn::work::burn(n, k);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(n * 60) / s;
}

}  // namespace

Result bench_t0_bias(const Options& o) {
  pin_this_thread(first_allowed_cpus("t0-bias", 1)[0]);
  Result r;
  r.bench = "t0-bias";
  r.what = "a T0 from seven 10 ms rounds over the work loop's speed in the 0.6 s that follow (1: exact; above 1: "
           "a run's work takes longer than asked)";
  Metric& median = r.metric("median_over_next", "x");
  Metric& fastest = r.metric("fastest_over_next", "x");
  std::uint64_t iterations = 0;
  for (int rep = 0; rep < o.reps; ++rep) {
    kpn::work::TimedRounds rounds = kpn::work::timed_rounds();
    const double next = speed_that_follows(rounds.iterations);
    std::sort(rounds.rates.begin(), rounds.rates.end());
    median.samples.push_back(rounds.rates[rounds.rates.size() / 2] / next);
    fastest.samples.push_back(rounds.rates.back() / next);
    iterations = rounds.iterations;
  }
  r.config = {{"cpus", "1"}, {"round_iterations", std::to_string(iterations)}};
  return r;
}

}  // namespace kpn_bench
