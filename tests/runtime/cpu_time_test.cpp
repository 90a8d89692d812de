// The CPU time charged to processes (cpu_sampler.hpp): exact for long runs, an unbiased estimate from a
// sample of short ones.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <kpn.hpp>

#include "support.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Spins for `d` and returns how long it actually spun (preemption included: that is time on the worker).
double spin_s(std::chrono::nanoseconds d) {
  const auto start = Clock::now();
  const auto until = start + d;
  volatile unsigned long sink = 0;
  while (Clock::now() < until) sink = sink + 1;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A process alone in its network that spins `per_run` and yields, `runs` times: each spin is one run.
// Returns its charged CPU time; `spun` receives the time it measured itself spinning, leaving out spins
// that took longer than `cap` (preempted by the machine's other work).
double charged_for_runs(const kpn::test::Config& cfg, int runs, std::chrono::nanoseconds per_run, double& spun,
                        double cap = 1e9) {
  spun = 0;
  kpn::Network net;
  net.process("spinner", [&spun, runs, per_run, cap] {
    for (int i = 0; i < runs; ++i) {
      const double s = spin_s(per_run);
      if (s <= cap) spun += s;
      kpn::yield();
    }
  });
  const kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
  for (const auto& p : report.process_details) {
    if (p.name == "spinner") {
      REQUIRE(p.switches >= static_cast<std::uint64_t>(runs));
      return p.cpu_s;
    }
  }
  FAIL("the report has no process named spinner");
  return 0;
}

}  // namespace

TEST_CASE("a process whose runs are long is charged each of them in full", "[runtime]") {
  // 200 runs of 100 us, past the first runs that are always timed: a sampled run would be charged 16
  // times over and the rest nothing, and the total would miss the time spun by a third either way.
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    double spun = 0;
    const double cpu = charged_for_runs(cfg, 200, std::chrono::microseconds(100), spun);
    CAPTURE(cpu, spun);
    REQUIRE(cpu >= spun);
    REQUIRE(cpu <= 2 * spun);  // a run is timed from its switch in to its switch out, nothing more
  }
}

TEST_CASE("a process whose runs are short is charged an estimate of the time it ran, not the sample's", "[runtime]") {
  // Runs of about 1 us are timed one in 16 after the first ones; each timed run stands for 16. The
  // estimate's spread over 20,000 such runs is a few percent. A run the machine preempted for
  // milliseconds counts 16 times if it was timed and not at all if it was not, which averages out only
  // over many preemptions: spins longer than 5 us are left out of the reference, so that on a loaded
  // machine the estimate is compared with the runs it estimates well (and such a run only adds to it).
  const int runs = kpn::test::full_or_sanitized(20000, 4000);
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    double spun = 0;
    const double cpu = charged_for_runs(cfg, runs, std::chrono::microseconds(1), spun, 5e-6);
    CAPTURE(cpu, spun);
    REQUIRE(cpu >= 0.8 * spun);
  }
}
