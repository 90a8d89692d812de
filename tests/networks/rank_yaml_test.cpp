// The `rank:` key of a process in a topology file (docs/topology.md, docs/distributed.md): resolved onto
// every replica, range-checked like the other integer keys, and ignored by a run without --distributed.

#include <catch2/catch.hpp>

#include <string>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::errors_of;
using kpn::test::listing;
using kpn::test::resolve_text;

TEST_CASE("a process's rank in the file reaches every replica, with where it is written", "[networks][rank]") {
  const auto resolved = resolve_text(R"(network: t
processes:
  src: { kind: source, args: { count: 3 }, rank: 1 }
  fork: { kind: split }
  snk: { kind: sink, replicas: 2, rank: 0 }
channels:
  - { from: src.out, to: fork.in }
  - { from: fork.out, to: snk.in }
)");
  REQUIRE(resolved.processes.size() == 4);
  for (const auto& p : resolved.processes) {
    CAPTURE(p.name);
    if (p.declaration == "src") {
      REQUIRE(p.rank);
      CHECK(*p.rank == 1);
      CHECK(p.rank_where.line == 3);
      CHECK(p.rank_where.column == 50);
    } else if (p.declaration == "snk") {
      REQUIRE(p.rank);
      CHECK(*p.rank == 0);
    } else {
      CHECK_FALSE(p.rank);
    }
  }
}

TEST_CASE("a rank out of range is reported at its location with the allowed range", "[networks][rank]") {
  const auto diags = errors_of(R"(network: t
processes:
  src: { kind: source, args: { count: 3 }, rank: -1 }
  snk: { kind: sink, rank: 65536 }
channels:
  - { from: src.out, to: snk.in }
)");
  INFO(listing(diags));
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].where.line == 3);
  CHECK_THAT(diags[0].message, Contains("process 'src': rank: -1 is out of range [0, 65535]"));
  CHECK(diags[1].where.line == 4);
  CHECK_THAT(diags[1].message, Contains("process 'snk': rank: 65536 is out of range [0, 65535]"));
}

TEST_CASE("kpn-run without --distributed runs a file with rank: as one machine", "[networks][rank][runner]") {
  const auto file = kpn::test::write_scratch("rank.yaml", R"(network: t
processes:
  src: { kind: source, args: { count: 3 }, rank: 3 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  const auto r = kpn::test::kpn_run(kpn::test::quoted_path(file) + " -q");
  CHECK(r.exit_code == 0);
  CHECK(r.out == kpn::test::sink_line("snk", {0, 1, 2}) + "\n");
}
