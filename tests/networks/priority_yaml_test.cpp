// The `priority:` key of a process in a topology file (docs/topology.md).

#include <catch2/catch.hpp>

#include <string>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::errors_of;
using kpn::test::listing;
using kpn::test::resolve_text;

TEST_CASE("a process's priority in the file reaches its options", "[networks][priority]") {
  const auto resolved = resolve_text(R"(network: t
processes:
  src: { kind: source, args: { count: 3 }, priority: 7 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  REQUIRE(resolved.processes.size() == 2);
  for (const auto& p : resolved.processes) {
    CAPTURE(p.name);
    CHECK(p.options.priority == (p.name == "src" ? 7 : 0));
  }
}

TEST_CASE("a priority out of range is reported at its location with the allowed range", "[networks][priority]") {
  const auto diags = errors_of(R"(network: t
processes:
  src: { kind: source, args: { count: 3 }, priority: 8 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.line == 3);
  CHECK(diags[0].where.column == 54);
  CHECK_THAT(diags[0].message, Contains("process 'src': priority: 8 is out of range [0, 7]"));
}

TEST_CASE("kpn-run exits 2 on a priority out of range, at its file:line:column", "[networks][priority][runner]") {
  const auto file = kpn::test::write_scratch("priority.yaml", R"(network: t
processes:
  src: { kind: source, args: { count: 3 }, priority: -1 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  const auto r = kpn::test::kpn_run(kpn::test::quoted_path(file));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("error: " + file.string() + ":3:54: process 'src': priority: -1 is out of range [0, 7]"));
}
