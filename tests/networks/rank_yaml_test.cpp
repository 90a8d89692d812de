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

namespace {

// The ranks of a declaration's replicas, in replica order (-1: none; -2: round-robin, decided at launch).
std::vector<int> ranks_of(const kpn::ResolvedNetwork& net, const std::string& declaration) {
  std::vector<int> out;
  for (const auto& p : net.processes) {
    if (p.declaration == declaration) out.push_back(p.rank ? *p.rank : p.rank_round_robin ? -2 : -1);
  }
  return out;
}

}  // namespace

TEST_CASE("a list of ranks gives each replica its own, with where each is written", "[networks][rank]") {
  const auto resolved = resolve_text(R"(network: t
processes:
  src: { kind: source, args: { count: 3 } }
  fork: { kind: split }
  w: { kind: map, replicas: 3, rank: [2, 0, 1] }
  join: { kind: merge }
  snk: { kind: sink }
channels:
  - { from: src.out, to: fork.in }
  - { from: fork.out, to: w.in }
  - { from: w.out, to: join.in }
  - { from: join.out, to: snk.in }
)");
  CHECK(ranks_of(resolved, "w") == std::vector<int>{2, 0, 1});
  for (const auto& p : resolved.processes) {
    if (p.declaration != "w") continue;
    CAPTURE(p.name);
    CHECK(p.rank_where.line == 5);
    CHECK(p.rank_where.column == 39 + 3 * p.replica);
  }
}

TEST_CASE("a range of ranks deals the replicas round-robin over it, and round-robin over every rank waits for the launch",
          "[networks][rank]") {
  const auto resolved = resolve_text(R"(network: t
params: { spread: 1..3 }
processes:
  src: { kind: source, args: { count: 3 }, rank: 0 }
  fork: { kind: split }
  w: { kind: map, replicas: 5, rank: $spread }
  v: { kind: map, replicas: 5, rank: round-robin }
  join: { kind: merge }
  snk: { kind: sink }
channels:
  - { from: src.out, to: fork.in }
  - { from: fork.out, to: w.in }
  - { from: w.out, to: v.in }
  - { from: v.out, to: join.in }
  - { from: join.out, to: snk.in }
)");
  CHECK(ranks_of(resolved, "w") == std::vector<int>{1, 2, 3, 1, 2});
  CHECK(ranks_of(resolved, "v") == std::vector<int>{-2, -2, -2, -2, -2});
  CHECK(ranks_of(resolved, "src") == std::vector<int>{0});
  for (const auto& p : resolved.processes) {
    if (p.declaration == "w") CHECK(p.rank_range == "1..3");
  }
}

TEST_CASE("a rank list of the wrong length, a bad entry, a downward range and a word that is no rank are errors at their place",
          "[networks][rank]") {
  const auto diags = errors_of(R"(network: t
processes:
  a: { kind: map, replicas: 2, rank: [0, 1, 1] }
  b: { kind: map, replicas: 2, rank: [0, x] }
  c: { kind: map, replicas: 2, rank: 3..1 }
  d: { kind: map, replicas: 2, rank: spread }
channels:
  - { from: a.out, to: b.in }
  - { from: b.out, to: c.in }
  - { from: c.out, to: d.in }
  - { from: d.out, to: a.in }
)");
  INFO(listing(diags));
  REQUIRE(diags.size() == 4);
  CHECK(diags[0].where.line == 3);
  CHECK(diags[0].where.column == 38);
  CHECK_THAT(diags[0].message, Contains("process 'a': rank: a list of 3 ranks for 2 replicas; give one rank per replica"));
  CHECK(diags[1].where.line == 4);
  CHECK(diags[1].where.column == 42);
  CHECK_THAT(diags[1].message, Contains("process 'b': rank entry 1: expected an integer, got 'x'"));
  CHECK(diags[2].where.line == 5);
  CHECK_THAT(diags[2].message, Contains("process 'c': rank: the range 3..1 must run upwards within [0, 65535]"));
  CHECK(diags[3].where.line == 6);
  CHECK_THAT(diags[3].message, Contains("process 'd': rank: expected an integer 0 to 65535, a range A..B (replicas dealt over ranks A to "
                                        "B), round-robin (over every rank) or a list of integers, got 'spread'"));
}
