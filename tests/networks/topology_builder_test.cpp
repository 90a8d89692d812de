// A topology described in C++ (networks/topology_builder.hpp) resolves, builds and runs as the same
// topology in YAML does, and its errors point at the C++ line that declared the culprit.

#include <catch2/catch.hpp>

#include <string>

#include "networks/topology_builder.hpp"
#include "networks_support.hpp"

using Catch::Matchers::Contains;

namespace {

constexpr const char* kPipelineYaml = R"(network: chain
params: { count: 100 }
processes:
  src: { kind: source, args: { count: $count } }
  stage: { kind: map, replicas: 3, args: { add: 2 }, rank: round-robin, weight: 4 }
  snk: { kind: sink, args: { label: chain } }
channels:
  - { from: src.out, to: "stage[0].in", capacity: 4 }
  - { from: stage.out, to: stage.in, shift: 1, wrap: false }
  - { from: "stage[-1].out", to: snk.in }
)";

kpn::TopologyBuilder pipeline_builder() {
  kpn::TopologyBuilder b("chain");
  b.param("count", 100);
  b.process("src", "source").arg("count", "$count");
  b.process("stage", "map").replicas(3).arg("add", 2).rank("round-robin").weight(4);
  b.process("snk", "sink").arg("label", "chain");
  b.channel("src.out", "stage[0].in").capacity(4);
  b.channel("stage.out", "stage.in").shift(1).wrap(false);
  b.channel("stage[-1].out", "snk.in");
  return b;
}

}  // namespace

TEST_CASE("a topology built in C++ resolves to the same network as its YAML", "[networks][builder]") {
  const kpn::ResolvedNetwork from_yaml = kpn::test::resolve_text(kPipelineYaml, {{"count", "50"}});
  const kpn::ResolvedNetwork from_cpp = kpn::resolve(pipeline_builder().topology(), {{"count", "50"}});
  REQUIRE(from_cpp.processes.size() == from_yaml.processes.size());
  REQUIRE(from_cpp.channels.size() == from_yaml.channels.size());
  for (std::size_t i = 0; i < from_yaml.processes.size(); ++i) {
    const auto& a = from_yaml.processes[i];
    const auto& b = from_cpp.processes[i];
    CHECK(a.name == b.name);
    CHECK(a.kind == b.kind);
    CHECK(*a.args == *b.args);
    CHECK(a.rank_round_robin == b.rank_round_robin);
    CHECK(a.weight == b.weight);
  }
  for (std::size_t i = 0; i < from_yaml.channels.size(); ++i) {
    CHECK(from_yaml.channels[i].name == from_cpp.channels[i].name);
    CHECK(from_yaml.channels[i].capacity == from_cpp.channels[i].capacity);
  }
  CHECK(from_cpp.params == from_yaml.params);
}

TEST_CASE("a topology built in C++ runs and prints what its YAML prints", "[networks][builder]") {
  const auto yaml_lines = kpn::test::run_lines(kpn::test::resolve_text(kPipelineYaml), "handoff", 2);
  const auto cpp_lines = kpn::test::run_lines(kpn::resolve(pipeline_builder().topology(), {}), "handoff", 2);
  CHECK(cpp_lines == yaml_lines);
  CHECK_FALSE(cpp_lines.empty());
}

TEST_CASE("an error in a topology built in C++ names the source line that declared it", "[networks][builder]") {
  kpn::TopologyBuilder b("bad");
  const int line = __LINE__ + 1;
  b.process("src", "no.such-kind");
  b.process("2nd", "sink");
  b.channel("src.out", "nowhere");
  try {
    (void)kpn::resolve(b.topology(), {});
    FAIL("resolve accepted an unknown kind");
  } catch (const kpn::TopologyError& e) {
    const std::string all = kpn::test::listing(e.diagnostics());
    INFO(all);
    CHECK_THAT(all, Contains(std::string("topology_builder_test.cpp:") + std::to_string(line) + ":"));
    CHECK_THAT(all, Contains("unknown kind 'no.such-kind'"));
    CHECK_THAT(all, Contains("'2nd' is not a valid process name"));
    CHECK_THAT(all, Contains("channel 'to': expected 'process.port' or 'process[index].port', got 'nowhere'"));
  }
}
