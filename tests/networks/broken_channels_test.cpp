// The rule for end of stream and broken channels (docs/topology.md): a process with several outputs drops
// one whose reader has gone and goes on serving the others, so what they receive depends on the input
// only, never on when a reader left. Checked under every registered scheduler, on 1 and 2 workers.

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "networks_support.hpp"

using kpn::test::resolve_text;
using kpn::test::run_lines;
using kpn::test::sink_line;

namespace {

// Each repetition runs every scheduler on 1 and 2 workers; the runs are short, but work-stealing thieves spin, and
// on a loaded machine a run can take most of a second.
constexpr int kRepetitions = 10;

std::vector<std::int64_t> range(std::int64_t from, std::int64_t to, std::int64_t step = 1) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = from; i < to; i += step) v.push_back(i);
  return v;
}

// Runs `resolved` kRepetitions times under every registered scheduler on 1 and 2 workers and checks that
// its sinks print `expected` every time.
void check_every_schedule(const kpn::ResolvedNetwork& resolved, const std::vector<std::string>& expected) {
  const auto schedulers = kpn::scheduler_list();
  REQUIRE(schedulers.size() >= 3);
  for (const auto& scheduler : schedulers) {
    for (unsigned cpus : {1u, 2u}) {
      for (int rep = 0; rep < kRepetitions; ++rep) {
        CAPTURE(scheduler.name, cpus, rep);
        REQUIRE(run_lines(resolved, scheduler.name, cpus) == expected);
      }
    }
  }
}

}  // namespace

TEST_CASE("a broadcast gives its full reader every value whatever the schedule when another reader stops early",
          "[networks][determinism]") {
  const auto net = resolve_text(R"(network: t
processes:
  src: { kind: source, args: { count: 1000 } }
  fork: { kind: broadcast }
  full: { kind: sink }
  short: { kind: sink, args: { limit: 10 } }
channels:
  - { from: src.out, to: fork.in }
  - { from: fork.out, to: short.in }
  - { from: fork.out, to: full.in }
)");
  check_every_schedule(net, {sink_line("full", range(0, 1000)), sink_line("short", range(0, 10))});
}

TEST_CASE("a split keeps dealing each remaining output its own share when one reader stops early",
          "[networks][determinism]") {
  const auto net = resolve_text(R"(network: t
processes:
  src: { kind: source, args: { count: 999 } }
  deal: { kind: split }
  a: { kind: sink }
  b: { kind: sink, args: { limit: 2 } }
  c: { kind: sink }
channels:
  - { from: src.out, to: deal.in }
  - { from: deal.out, to: a.in }
  - { from: deal.out, to: b.in }
  - { from: deal.out, to: c.in }
)");
  check_every_schedule(net, {sink_line("a", range(0, 999, 3)), sink_line("b", {1, 4}), sink_line("c", range(2, 999, 3))});
}

TEST_CASE("a broadcast whose readers all stop early ends, and so does its endless source", "[networks][determinism]") {
  const auto net = resolve_text(R"(network: t
processes:
  src: { kind: source, args: { count: 9000000000000000000 } }
  fork: { kind: broadcast }
  x: { kind: sink, args: { limit: 3 } }
  y: { kind: sink, args: { limit: 5 } }
channels:
  - { from: src.out, to: fork.in }
  - { from: fork.out, to: x.in }
  - { from: fork.out, to: y.in }
)");
  check_every_schedule(net, {sink_line("x", range(0, 3)), sink_line("y", range(0, 5))});
}

TEST_CASE("a broadcast in a cycle ends once the only reader outside the cycle stops, and the cycle winds down",
          "[networks][determinism]") {
  // Fibonacci: the loop add -> one -> fork -> (add, zero -> add) has one way out, fork -> sink.
  const auto net = resolve_text(R"(network: t
processes:
  add: { kind: add }
  one: { kind: prepend, args: { value: 1 } }
  zero: { kind: prepend, args: { value: 0 } }
  fork: { kind: broadcast }
  sink: { kind: sink, args: { limit: 10 } }
channels:
  - { from: add.out, to: one.in }
  - { from: one.out, to: fork.in }
  - { from: fork.out, to: sink.in }
  - { from: fork.out, to: add.a }
  - { from: fork.out, to: zero.in }
  - { from: zero.out, to: add.b }
)");
  check_every_schedule(net, {sink_line("sink", {1, 1, 2, 3, 5, 8, 13, 21, 34, 55})});
}
