#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include <kpn.hpp>

#include "schedulers/scheduler_stat.hpp"
#include "spin_for.hpp"

// The speed-balance policy's own promises: a worker that receives less CPU time than the others gives processes
// to a faster one, and its interval is an option validated when the policy is made. (Every other test runs it
// too, as one of all_configs().)

using Catch::Matchers::Contains;

using kpn::test::scheduler_stat;
using kpn::test::spin_for;

namespace {

// Processes that compute and yield, never block: nobody is ever idle, so only the balancer moves them.
kpn::Network computing(int processes, int slices) {
  kpn::Network net;
  for (int i = 0; i < processes; ++i) {
    net.process("p" + std::to_string(i), [slices] {
      for (int s = 0; s < slices; ++s) {
        spin_for(std::chrono::microseconds(100));
        kpn::yield();
      }
    });
  }
  return net;
}

std::string refusal(const kpn::SchedulerOptions& options) {
  try {
    (void)kpn::make_scheduler("speed-balance", options);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("speed-balance: a fast worker pulls processes from a worker that receives less CPU time",
          "[schedulers][speed-balance]") {
  kpn::SpeedBalanceSettings settings;
  settings.interval = std::chrono::milliseconds(2);
  // Worker 0 receives a third of what its thread measures, as if another program shared its CPU.
  settings.cpu_time = [](std::size_t worker, std::int64_t ns) { return worker == 0 ? ns / 3 : ns; };
  kpn::Network net = computing(8, 400);
  const kpn::RunReport r =
      kpn::Runtime({.cpus = 2}, std::make_unique<kpn::SpeedBalanceScheduler>(std::move(settings))).run(net);
  CHECK(scheduler_stat(r, "balancing_rounds") >= 1);
  CHECK(scheduler_stat(r, "migrations") >= 1);
  CHECK(scheduler_stat(r, "speed_w0") < scheduler_stat(r, "speed_w1"));
  CHECK(scheduler_stat(r, "speed_w0") >= 0);
}

TEST_CASE("speed-balance: RuntimeOptions::scheduler_options sets the interval", "[schedulers][speed-balance]") {
  kpn::Network net = computing(2, 1);
  const kpn::RunReport r =
      kpn::Runtime({.cpus = 2, .scheduler = "speed-balance", .scheduler_options = {{"interval_ms", "7.5"}}}).run(net);
  CHECK(scheduler_stat(r, "interval_ms") == Approx(7.5));
}

TEST_CASE("speed-balance: an interval that is not a positive number, or an unknown key, is refused, naming the "
          "allowed ones",
          "[schedulers][speed-balance]") {
  for (const char* bad : {"0", "-5", "abc", "20ms", ""}) {
    CAPTURE(bad);
    CHECK_THAT(refusal({{"interval_ms", bad}}), Contains("interval_ms") && Contains("allowed: interval_ms=") &&
                                                    Contains("threshold="));
  }
  CHECK_THAT(refusal({{"threshold", "1.5"}}), Contains("threshold"));
  CHECK_THAT(refusal({{"intervall_ms", "20"}}), Contains("unknown option 'intervall_ms'") && Contains("interval_ms="));
  CHECK(refusal({{"interval_ms", "20"}, {"threshold", "0.8"}}) == "(accepted)");
  // A policy without settings refuses any.
  CHECK_THROWS_WITH(kpn::make_scheduler("ws-last", {{"interval_ms", "20"}}), Contains("takes no options"));
  CHECK_THROWS_AS(kpn::parse_scheduler_option("interval_ms"), std::invalid_argument);
}
