// host-stalls: how much of each CPU the machine takes away from a thread that never blocks. One thread per
// CPU, pinned, reads steady_clock back to back for a while; a gap between two reads longer than kStallUs is
// time the thread did not run: an interrupt, the kernel's tick, another task, or (on a VM) the host running
// something else on that vCPU's core. No runtime is involved. A figure measured on two workers can be no
// better than what this leaves of them, and a W/wall that moves between sittings of one host moves with it.
//
// Under chrt -f (SCHED_FIFO) a thread that spins longer than the kernel's real-time budget
// (/proc/sys/kernel/sched_rt_runtime_us of sched_rt_period_us, 0.95 s of 1 s by default) is throttled for
// the rest of the period: one stall of about 50 ms a second. The spell here is kSpellMs, well inside the
// budget, and the reps are separated by a sleep of the same length, so a throttled rep says that something
// else had used the budget (the benchmarks before it).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <latch>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "benchmarks.hpp"

namespace kpn_bench {
namespace {

constexpr double kStallUs = 10;
constexpr int kSpellMs = 200;

struct Spell {
  double stalled_s = 0;  // the sum of the gaps over kStallUs
  std::uint64_t stalls = 0;
  double longest_us = 0;
  double wall_s = 0;
};

Spell watch_clock(int cpu, std::latch& start_line) {
  using clock = std::chrono::steady_clock;
  pin_this_thread(cpu);
  start_line.arrive_and_wait();
  Spell s;
  const auto begin = clock::now();
  const auto end = begin + std::chrono::milliseconds(kSpellMs);
  auto last = begin;
  for (;;) {
    const auto now = clock::now();
    const double gap_us = std::chrono::duration<double, std::micro>(now - last).count();
    if (gap_us > kStallUs) {
      s.stalled_s += gap_us * 1e-6;
      ++s.stalls;
      s.longest_us = std::max(s.longest_us, gap_us);
    }
    last = now;
    if (now >= end) break;
  }
  s.wall_s = std::chrono::duration<double>(last - begin).count();
  return s;
}

}  // namespace

Result bench_host_stalls(const Options& o, unsigned cpus) {
  const std::vector<int> all = first_allowed_cpus("host-stalls", cpus);
  Result r;
  r.bench = "host-stalls";
  r.what = fmt::format("{} pinned threads reading steady_clock back to back for {} ms; a gap over {} us is a stall "
                       "(time the thread did not run); per CPU: share of the time stalled, stalls per second, "
                       "the longest",
                       cpus, kSpellMs, kStallUs);
  r.config = {{"cpus", std::to_string(cpus)}, {"spell_ms", std::to_string(kSpellMs)},
              {"stall_us", fmt::format("{}", kStallUs)}};
  Metric& share = r.metric("stalled_share", "%");
  Metric& rate = r.metric("stalls_per_s", "1/s");
  Metric& longest = r.metric("longest_stall", "us");
  for (int rep = 0; rep < o.reps; ++rep) {
    if (rep > 0) std::this_thread::sleep_for(std::chrono::milliseconds(kSpellMs));
    // A blocking start, not a spin (burn_on in bench_work_ceiling.cpp says why).
    std::latch start_line(static_cast<std::ptrdiff_t>(cpus));
    std::vector<Spell> spells(cpus);
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < cpus; ++t) {
      threads.emplace_back([&, t] { spells[t] = watch_clock(all[t], start_line); });
    }
    for (auto& th : threads) th.join();
    // Each CPU is a sample: the spread then shows a CPU that the host serves worse than the other.
    for (const Spell& s : spells) {
      share.samples.push_back(100.0 * s.stalled_s / s.wall_s);
      rate.samples.push_back(static_cast<double>(s.stalls) / s.wall_s);
      longest.samples.push_back(s.longest_us);
    }
  }
  return r;
}

}  // namespace kpn_bench
