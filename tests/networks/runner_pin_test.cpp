// kpn-run --pin and the topology in its reports.

#include <catch2/catch.hpp>

#include <string>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::config_path;
using kpn::test::kpn_run;

TEST_CASE("kpn-run exits 2 on an unknown --pin value, naming the allowed ones", "[runner][pinning]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --pin sockets");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("--pin") && Contains("cores") && Contains("pus") && Contains("none"));
}

TEST_CASE("kpn-run --stats-json reports the topology, the pin mode and each worker's PU", "[runner][pinning]") {
  for (const std::string pin : {"cores", "pus", "none"}) {
    CAPTURE(pin);
    const auto r = kpn_run(config_path("ring.yaml") + " --cpus 2 --pin " + pin + " --stats-json -");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Contains("\"topology\":{\"pin\":\"" + pin + "\",\"packages\":") && Contains("\"numa_nodes\":") &&
                          Contains("\"cores\":") && Contains("\"pus\":") && Contains("\"worker_pus\":["));
    if (pin == "none") CHECK_THAT(r.out, Contains("\"worker_pus\":[-1,-1]"));
    CHECK_THAT(r.err, Contains("topology: ") && Contains("pin " + pin));
  }
}

TEST_CASE("kpn-run --help lists steal-half and --pin", "[runner][pinning]") {
  const auto r = kpn_run("--help");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("--pin") && Contains("steal-half"));
}
