// work-ceiling: scatter-gather's work without kpn (or any runtime), the W/wall nothing can beat on this
// machine. configs/scatter-gather.yaml with workers=64 rounds=2000 spends 128,000 messages x w microseconds
// of kpn::work (the runner's calibration); here one kernel thread per CPU, pinned, burns its share of those
// messages back to back, message by message as a scatter-gather worker does, and nothing else. Its W/wall
// is what the machine gives: below the number of CPUs when the CPUs slow each other down (shared caches,
// memory bandwidth, a host that runs a VM's vCPUs on one core's hyper-threads or caps their frequency).

#include <algorithm>
#include <latch>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "benchmarks.hpp"
#include "networks/work.hpp"

namespace kpn_bench {
namespace {

constexpr std::uint64_t kMessages = 64 * 2000;

// Seconds from the start signal until the last thread has burnt its share.
double burn_on(const std::vector<int>& cpus, std::uint64_t iterations) {
  using clock = std::chrono::steady_clock;
  // A blocking start, not a spin: under chrt -f every thread is SCHED_FIFO, and spinners pinned to every
  // CPU would starve this one for good.
  std::latch start_line(static_cast<std::ptrdiff_t>(cpus.size() + 1));
  std::vector<clock::time_point> done(cpus.size());
  std::vector<std::thread> threads;
  const std::uint64_t share = kMessages / cpus.size();
  for (std::size_t t = 0; t < cpus.size(); ++t) {
    threads.emplace_back([&, t] {
      pin_this_thread(cpus[t]);
      start_line.arrive_and_wait();
      for (std::uint64_t m = 0; m < share; ++m) kpn::work::burn(iterations, m);
      done[t] = clock::now();
    });
  }
  const auto start = clock::now();  // before the wake-ups, which count against the ceiling (microseconds)
  start_line.arrive_and_wait();
  for (auto& th : threads) th.join();
  return std::chrono::duration<double>(*std::max_element(done.begin(), done.end()) - start).count();
}

}  // namespace

Result bench_work_ceiling(const Options& o, unsigned cpus) {
  const std::vector<int> all = first_allowed_cpus("work-ceiling", cpus);
  Result r;
  r.bench = "work-ceiling";
  r.what = fmt::format("{} messages of w us of kpn::work (scatter-gather's, 64 workers x 2000 rounds) burnt by {} "
                       "pinned threads, no runtime; W/wall = messages x w / wall (ideal: the number of CPUs)",
                       kMessages, cpus);
  if (o.t0 > 0) kpn::work::set_iterations_per_second(o.t0);
  const double t0 = kpn::work::iterations_per_second();
  r.config = {{"cpus", std::to_string(cpus)}, {"messages", std::to_string(kMessages)},
              {"iterations_per_s", fmt::format("{:.4g}", t0)}};
  Metric& w1 = r.metric("w1_work_per_wall", "x");
  Metric& w10 = r.metric("w10_work_per_wall", "x");
  for (int rep = 0; rep < o.reps; ++rep) {
    for (const double us : {1.0, 10.0}) {
      const double wall = burn_on(all, kpn::work::iterations_for_us(us));
      (us == 1.0 ? w1 : w10).samples.push_back(static_cast<double>(kMessages) * us * 1e-6 / wall);
    }
  }
  return r;
}

}  // namespace kpn_bench
