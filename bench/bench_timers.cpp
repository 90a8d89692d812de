// Timer accuracy: how late kpn::sleep_for(1 ms) wakes, the workload that ../shared/peers/ has for Go
// (time.Sleep) and Boost.Fiber (this_fiber::sleep_for) in scripts/peers-timers/.

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "benchmarks.hpp"

namespace kpn_bench {
namespace {

constexpr int kSleeps = 10'000;
constexpr auto kPeriod = std::chrono::milliseconds(1);

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

Result bench_timers(const Options& o, unsigned cpus) {
  Result r;
  r.bench = "timers-" + std::to_string(cpus) + "cpu";
  r.what = "one process sleeps 1 ms, 10,000 times; lateness = wake-up - (call + 1 ms), per repetition its median and p99";
  r.config = {{"cpus", std::to_string(cpus)}, {"scheduler", o.scheduler}, {"n", std::to_string(kSleeps)}};
  Metric& median = r.metric("lateness_median_us", "us");
  Metric& p99 = r.metric("lateness_p99_us", "us");
  Metric& worst = r.metric("lateness_max_us", "us");
  for (int rep = 0; rep < o.reps; ++rep) {
    std::vector<double> late;
    late.reserve(kSleeps);
    kpn::Network net;
    net.process("sleeper", [&late] {
      for (int i = 0; i < kSleeps; ++i) {
        const auto due = std::chrono::steady_clock::now() + kPeriod;
        kpn::sleep_for(kPeriod);
        late.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - due).count());
      }
    });
    kpn::Runtime({.cpus = cpus, .scheduler = o.scheduler}).run(net);
    median.samples.push_back(percentile(late, 0.5));
    p99.samples.push_back(percentile(late, 0.99));
    worst.samples.push_back(*std::max_element(late.begin(), late.end()));
  }
  return r;
}

}  // namespace kpn_bench
