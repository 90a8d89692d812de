// The `weight:` key of a process in a topology file (docs/topology.md): a placement hint for a distributed
// run, resolved onto every replica (or one entry per replica), a positive number, errors at file:line:column.

#include <catch2/catch.hpp>

#include <string>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::errors_of;
using kpn::test::listing;
using kpn::test::resolve_text;

TEST_CASE("a process's weight in the file reaches every replica, and a list gives each its own", "[networks][weight]") {
  const auto resolved = resolve_text(R"(network: t
params: { heavy: 20 }
processes:
  src: { kind: source, args: { count: 3 }, weight: 0.5 }
  fork: { kind: split }
  work: { kind: map, replicas: 2, weight: $heavy }
  snk: { kind: sink, replicas: 2, weight: [1, 2.5] }
channels:
  - { from: src.out, to: fork.in }
  - { from: fork.out, to: work.in }
  - { from: work.out, to: snk.in }
)");
  REQUIRE(resolved.processes.size() == 6);
  for (const auto& p : resolved.processes) {
    CAPTURE(p.name);
    if (p.name == "src") CHECK(p.weight == 0.5);
    else if (p.name == "fork") CHECK_FALSE(p.weight);
    else if (p.declaration == "work") CHECK(p.weight == 20.0);
    else if (p.name == "snk[0]") CHECK(p.weight == 1.0);
    else if (p.name == "snk[1]") CHECK(p.weight == 2.5);
  }
}

TEST_CASE("a weight that is not a positive number is reported at its location", "[networks][weight]") {
  const auto diags = errors_of(R"(network: t
processes:
  src: { kind: source, args: { count: 3 }, weight: 0 }
  snk: { kind: sink, weight: heavy }
channels:
  - { from: src.out, to: snk.in }
)");
  INFO(listing(diags));
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].str().starts_with("t.yaml:3:52: "));
  CHECK_THAT(diags[0].message, Contains("process 'src': weight: 0 is out of range: a weight is a relative CPU work above 0"));
  CHECK(diags[1].where.line == 4);
  CHECK_THAT(diags[1].message, Contains("process 'snk': weight: expected a number, got 'heavy'"));
}

TEST_CASE("a weight list of the wrong length is reported at the list", "[networks][weight]") {
  const auto diags = errors_of(R"(network: t
processes:
  src: { kind: source, args: { count: 3 } }
  fork: { kind: split }
  snk: { kind: sink, replicas: 3, weight: [1, 2] }
channels:
  - { from: src.out, to: fork.in }
  - { from: fork.out, to: snk.in }
)");
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.line == 5);
  CHECK_THAT(diags[0].message, Contains("process 'snk': weight: a list of 2 weights for 3 replicas"));
}
