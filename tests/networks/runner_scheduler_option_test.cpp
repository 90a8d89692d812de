// kpn-run --scheduler-option and the policy list of --help.

#include <catch2/catch.hpp>

#include <string>

#include <kpn.hpp>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::config_path;
using kpn::test::kpn_run;

TEST_CASE("kpn-run exits 2 on a bad --scheduler-option, naming the allowed keys and values", "[runner]") {
  for (const std::string bad : {"interval_ms=0", "interval_ms=-3", "interval_ms=fast", "intervall_ms=20", "interval_ms"}) {
    CAPTURE(bad);
    const auto r = kpn_run(config_path("ring.yaml") + " --scheduler speed-balance --scheduler-option " + bad);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Contains("interval_ms"));
    if (bad != "interval_ms") CHECK_THAT(r.err, Contains("allowed: interval_ms=") && Contains("threshold="));
  }
  const auto r = kpn_run(config_path("ring.yaml") + " --scheduler ws-last --scheduler-option interval_ms=20");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("'ws-last' takes no options"));
}

TEST_CASE("kpn-run --scheduler-option reaches the policy, and --stats-json carries its statistics", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") +
                         " --cpus 2 --scheduler speed-balance --scheduler-option interval_ms=5 --scheduler-option "
                         "threshold=0.8 --stats-json - -q");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains(R"("interval_ms":5)") && Contains(R"("migrations":)") && Contains(R"("speed_w1":)"));
}

TEST_CASE("kpn-run --help lists every registered policy", "[runner]") {
  const auto r = kpn_run("--help");
  REQUIRE(r.exit_code == 0);
  for (const auto& s : kpn::scheduler_list()) {
    if (s.name == "random") continue;  // registered by the test binary only (tests/support), not in kpn-run
    CAPTURE(s.name);
    CHECK_THAT(r.out, Contains("  " + s.name + " "));
  }
}
