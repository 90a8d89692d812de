// How channel declarations expand into channels (docs/topology.md, "Connections"): array ports of single
// processes fan out and in, replicated processes pair one to one, shift and wrap offset the pairing, and
// explicit replica indexes pick one replica.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::errors_of;
using kpn::test::listing;
using kpn::test::resolve_text;

namespace {

std::vector<std::string> channel_names(const kpn::ResolvedNetwork& net) {
  std::vector<std::string> out;
  for (const auto& c : net.channels) out.push_back(c.name);
  return out;
}

}  // namespace

TEST_CASE("an array port of a single process connects to every replica, one channel each", "[networks]") {
  const auto net = resolve_text(R"(network: t
processes:
  master: { kind: scatter-gather.master, args: { rounds: 1 } }
  worker: { kind: scatter-gather.worker, replicas: 3 }
channels:
  - { from: master.out, to: worker.in }
  - { from: worker.out, to: master.in, capacity: 2 }
)");
  CHECK(channel_names(net) == std::vector<std::string>{
                                  "master.out[0] -> worker[0].in", "master.out[1] -> worker[1].in",
                                  "master.out[2] -> worker[2].in", "worker[0].out -> master.in[0]",
                                  "worker[1].out -> master.in[1]", "worker[2].out -> master.in[2]"});
  CHECK(net.channels[0].capacity == 1);
  CHECK(net.channels[3].capacity == 2);
  REQUIRE(net.processes.size() == 4);
  CHECK(net.processes[1].name == "worker[0]");
  CHECK(net.processes[3].replica == 2);
  CHECK(net.processes[3].replicas == 3);
}

TEST_CASE("an array port takes its channels in declaration order", "[networks]") {
  const auto net = resolve_text(R"(network: t
processes:
  a: { kind: source }
  b: { kind: source }
  merge: { kind: merge }
  snk: { kind: sink }
channels:
  - { from: b.out, to: merge.in }
  - { from: a.out, to: merge.in }
  - { from: merge.out, to: snk.in }
)");
  CHECK(channel_names(net) == std::vector<std::string>{"b.out -> merge.in[0]", "a.out -> merge.in[1]", "merge.out -> snk.in"});
}

TEST_CASE("replicated processes connect one to one, replica i to replica i", "[networks]") {
  const auto net = resolve_text(R"(network: t
processes:
  src: { kind: source }
  split: { kind: split }
  a: { kind: map, replicas: 2 }
  b: { kind: map, replicas: 2 }
  merge: { kind: merge }
  snk: { kind: sink }
channels:
  - { from: src.out, to: split.in }
  - { from: split.out, to: a.in }
  - { from: a.out, to: b.in }
  - { from: b.out, to: merge.in }
  - { from: merge.out, to: snk.in }
)");
  const auto names = channel_names(net);
  CHECK(std::count(names.begin(), names.end(), "a[0].out -> b[0].in") == 1);
  CHECK(std::count(names.begin(), names.end(), "a[1].out -> b[1].in") == 1);
}

TEST_CASE("shift connects replica i to replica i+shift, wrapping around by default", "[networks]") {
  const auto net = resolve_text(R"(network: t
processes:
  node: { kind: ring.node, replicas: 3 }
channels:
  - { from: node.out, to: node.in, shift: -1 }
)");
  CHECK(channel_names(net) ==
        std::vector<std::string>{"node[0].out -> node[2].in", "node[1].out -> node[0].in", "node[2].out -> node[1].in"});
}

TEST_CASE("shift without wrap leaves the ends to explicit replica indexes, negative ones counting from the end",
          "[networks]") {
  const auto net = resolve_text(R"(network: t
processes:
  src: { kind: source }
  stage: { kind: map, replicas: 3 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: "stage[0].in" }
  - { from: stage.out, to: stage.in, shift: 1, wrap: false }
  - { from: "stage[-1].out", to: snk.in }
)");
  CHECK(channel_names(net) == std::vector<std::string>{"src.out -> stage[0].in", "stage[0].out -> stage[1].in",
                                                       "stage[1].out -> stage[2].in", "stage[2].out -> snk.in"});
}

TEST_CASE("count makes several channels between two array ports of single processes", "[networks]") {
  const auto net = resolve_text(R"(network: t
processes:
  src: { kind: source }
  split: { kind: split }
  merge: { kind: merge }
  snk: { kind: sink }
channels:
  - { from: src.out, to: split.in }
  - { from: split.out, to: merge.in, count: 3 }
  - { from: merge.out, to: snk.in }
)");
  CHECK(net.channels.size() == 5);
  CHECK(net.channels[3].name == "split.out[2] -> merge.in[2]");
}

TEST_CASE("a replica index may be a parameter", "[networks]") {
  const auto net = resolve_text(R"(network: t
params: { last: 1 }
processes:
  src: { kind: source }
  stage: { kind: map, replicas: 2 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: "stage[0].in" }
  - { from: "stage[0].out", to: "stage[$last].in" }
  - { from: "stage[$last].out", to: snk.in }
)");
  CHECK(channel_names(net)[1] == "stage[0].out -> stage[1].in");
}

TEST_CASE("replicated processes of different counts cannot be paired", "[networks]") {
  const auto diags = errors_of(R"(network: t
processes:
  a: { kind: ring.node, replicas: 3 }
  b: { kind: ring.node, replicas: 2 }
channels:
  - { from: a.out, to: b.in }
  - { from: b.out, to: a.in }
)");
  INFO(listing(diags));
  REQUIRE_FALSE(diags.empty());
  CHECK(diags[0].where.str() == "t.yaml:6:5");
  CHECK_THAT(diags[0].message, Contains("cannot connect 3 'a' to 2 'b' one to one"));
}

TEST_CASE("a single port cannot fan out to replicas, and the message points to array ports", "[networks]") {
  const auto diags = errors_of(R"(network: t
processes:
  src: { kind: source }
  work: { kind: map, replicas: 2 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: work.in }
  - { from: work.out, to: snk.in }
)");
  INFO(listing(diags));
  REQUIRE_FALSE(diags.empty());
  CHECK_THAT(diags[0].message, Contains("cannot connect 1 'src' to 2 'work' one to one") && Contains("use an array port"));
}

TEST_CASE("a replica index out of range is reported with the valid range", "[networks]") {
  const auto diags = errors_of(R"(network: t
processes:
  src: { kind: source }
  stage: { kind: map, replicas: 2 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: "stage[2].in" }
  - { from: stage.out, to: stage.in, shift: 1, wrap: false }
  - { from: "stage[-1].out", to: snk.in }
)");
  INFO(listing(diags));
  REQUIRE_FALSE(diags.empty());
  CHECK(diags[0].str() == "t.yaml:7:26: 'stage' replica index: 2 is out of range [-2, 1]");
}

TEST_CASE("a port reference that is not process.port is reported with the expected form", "[networks]") {
  const auto diags = errors_of(R"(network: t
processes:
  src: { kind: source }
  snk: { kind: sink }
channels:
  - { from: src, to: snk.in }
)");
  INFO(listing(diags));
  REQUIRE_FALSE(diags.empty());
  CHECK(diags[0].str() == "t.yaml:6:13: channel 'from': expected 'process.port' or 'process[index].port', got 'src'");
}

TEST_CASE("a --set value replaces a parameter's default everywhere it is used", "[networks]") {
  const std::string yaml = R"(network: t
params: { n: 2, cap: 1 }
processes:
  node: { kind: ring.node, replicas: $n }
channels:
  - { from: node.out, to: node.in, shift: 1, capacity: $cap }
)";
  const auto net = resolve_text(yaml, {{"n", "5"}, {"cap", "7"}});
  CHECK(net.processes.size() == 5);
  CHECK(net.channels.size() == 5);
  CHECK(net.channels[0].capacity == 7);
  CHECK(net.params == std::vector<std::pair<std::string, std::string>>{{"n", "5"}, {"cap", "7"}});
}

TEST_CASE("arguments left out take the kind's defaults", "[networks]") {
  const auto net = resolve_text(R"(network: t
processes:
  src: { kind: source, args: { count: 5 } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  const auto& args = *net.processes[0].args;
  CHECK(std::get<std::int64_t>(args.at("count")) == 5);
  CHECK(std::get<std::int64_t>(args.at("start")) == 0);
  CHECK(std::get<std::int64_t>(args.at("step")) == 1);
}

TEST_CASE("stack_size and cpu become the process's options", "[networks]") {
  const auto net = resolve_text(R"(network: t
processes:
  src: { kind: source, stack_size: 131072, cpu: 1 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  CHECK(net.processes[0].options.stack_size == 131072);
  CHECK(net.processes[0].options.home_worker == 1);
}

TEST_CASE("a replica index needs no quotes in block style", "[networks]") {
  const auto net = resolve_text(R"(network: t
processes:
  src: { kind: source }
  stage: { kind: map, replicas: 2 }
  snk: { kind: sink }
channels:
  - from: src.out
    to: stage[0].in
  - { from: stage.out, to: stage.in, shift: 1, wrap: false }
  - from: stage[1].out
    to: snk.in
)");
  CHECK(net.channels.size() == 3);
}

TEST_CASE("a process with replicas: 1 is still replicated: named x[0] and paired one to one", "[networks]") {
  const auto net = resolve_text(R"(network: t
params: { workers: 1 }
processes:
  master: { kind: scatter-gather.master, args: { rounds: 1 } }
  worker: { kind: scatter-gather.worker, replicas: $workers }
channels:
  - { from: master.out, to: worker.in }
  - { from: worker.out, to: master.in }
)");
  CHECK(channel_names(net) == std::vector<std::string>{"master.out[0] -> worker[0].in", "worker[0].out -> master.in[0]"});
}

TEST_CASE("count, shift and wrap are rejected where they do not apply", "[networks]") {
  const auto diags = errors_of(R"(network: t
processes:
  master: { kind: scatter-gather.master, args: { rounds: 1 } }
  worker: { kind: scatter-gather.worker, replicas: 2 }
channels:
  - { from: master.out, to: worker.in, count: 2 }
  - { from: worker.out, to: master.in, shift: 1 }
)");
  INFO(listing(diags));
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].str() == "t.yaml:6:47: channel master.out -> worker.in: 'count' applies only between two array "
                          "ports of single processes");
  CHECK(diags[1].str() == "t.yaml:7:5: channel worker.out -> master.in: 'shift' and 'wrap' apply only between "
                          "replicated processes");
}
