#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "networks_support.hpp"

// The `source` kind with `rate` or `period_us`: one value per period, through kpn::sleep_until.

namespace {

std::string paced(const std::string& args) {
  return "network: t\nprocesses:\n  snk: { kind: sink }\n  src: { kind: source, args: { " + args +
         " } }\nchannels:\n  - { from: src.out, to: snk.in }\n";
}

std::string build_error(const std::string& yaml) {
  kpn::ResultSink discard([](std::string_view) {});
  try {
    (void)kpn::build_network(kpn::test::resolve_text(yaml), discard);
  } catch (const kpn::TopologyError& e) {
    return kpn::test::listing(e.diagnostics());
  }
  return {};
}

}  // namespace

TEST_CASE("a source with a rate emits the same stream, spread over count divided by rate seconds", "[networks][timers]") {
  for (const char* args : {"count: 20, rate: 400", "count: 20, period_us: 2500"}) {
    CAPTURE(args);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<std::string> lines = kpn::test::run_lines(kpn::test::resolve_text(paced(args)), "handoff", 2);
    const auto took = std::chrono::steady_clock::now() - t0;
    std::vector<std::int64_t> values;
    for (std::int64_t i = 0; i < 20; ++i) values.push_back(i);
    CHECK(lines == std::vector<std::string>{kpn::test::sink_line("snk", values)});
    // 19 periods of 2.5 ms between the first value and the last.
    CHECK(took >= std::chrono::microseconds(19 * 2500));
  }
}

TEST_CASE("a source's rate and period are checked, with the process's place in the file", "[networks][timers]") {
  CHECK(build_error(paced("rate: -1")) ==
        "t.yaml:4:3: process 'src' (kind 'source'): rate must be >= 0 (messages per second), not -1\n");
  CHECK(build_error(paced("period_us: -5")) == "t.yaml:4:3: process 'src' (kind 'source'): period_us must be >= 0, not -5\n");
  CHECK(build_error(paced("rate: 10, period_us: 100")) ==
        "t.yaml:4:3: process 'src' (kind 'source'): give rate or period_us, not both\n");
  CHECK(build_error(paced("rate: 1000")).empty());
}
