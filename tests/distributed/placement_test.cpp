// The placement of a distributed run (distributed/placement.hpp) balances the estimated CPU over the
// ranks: with equal weights a pipeline whose work sits in its first half lands with all its heavy stages
// on one rank; the file's weight hints, or a pilot run's profile, split them. No MPI is started here:
// placing a network and its pilot run are rank 0's local work.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "distributed/pilot.hpp"
#include "distributed/placement.hpp"
#include "networks/resolved.hpp"
#include "networks/yaml_loader.hpp"

namespace d = kpn::distributed;

namespace {

// configs/unbalanced-pipeline.yaml's shape: source -> 3 heavy stages -> 5 light stages -> sink. Cutting
// it in the middle of the chain (what equal weights favour: one channel cut, five processes a side) puts
// every heavy stage on one rank.
constexpr const char* kUnbalanced = R"(network: unbalanced
params: { count: 1000000, heavy_us: 200, hint: 200 }
processes:
  source: { kind: source, args: { count: $count } }
  heavy: { kind: map, replicas: 3, args: { add: 1, work_us: $heavy_us }, weight: $hint }
  light: { kind: map, replicas: 5, args: { add: 1, work_us: 0 } }
  sink: { kind: sink }
channels:
  - { from: source.out, to: "heavy[0].in", capacity: 4 }
  - { from: heavy.out, to: heavy.in, shift: 1, wrap: false, capacity: 4 }
  - { from: "heavy[-1].out", to: "light[0].in", capacity: 4 }
  - { from: light.out, to: light.in, shift: 1, wrap: false, capacity: 4 }
  - { from: "light[-1].out", to: sink.in, capacity: 4 }
)";

kpn::ResolvedNetwork unbalanced(const std::vector<std::pair<std::string, std::string>>& sets = {}) {
  return kpn::resolve(kpn::read_topology(kUnbalanced, "unbalanced.yaml"), sets);
}

// The heaviest rank's share of the work over the average rank's, the work of each process being its
// weight hint (1 without one): what the ranks would really carry.
double true_imbalance(const kpn::ResolvedNetwork& net, const std::vector<int>& rank, int ranks) {
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  double total = 0;
  for (std::size_t i = 0; i < net.processes.size(); ++i) {
    const double w = net.processes[i].weight.value_or(1.0);
    load[static_cast<std::size_t>(rank[i])] += w;
    total += w;
  }
  return *std::max_element(load.begin(), load.end()) / (total / ranks);
}

int heavy_stages_on(const kpn::ResolvedNetwork& net, const std::vector<int>& rank, int r) {
  int n = 0;
  for (std::size_t i = 0; i < net.processes.size(); ++i) n += net.processes[i].declaration == "heavy" && rank[i] == r;
  return n;
}

}  // namespace

TEST_CASE("equal weights put every heavy stage of an unbalanced pipeline on one rank", "[distributed][placement]") {
  kpn::ResolvedNetwork net = unbalanced();
  for (auto& p : net.processes) p.weight.reset();  // no hints: equal weights
  const d::Placement p = d::place(net, 2);
  CHECK(p.source == "equal");
  CHECK(p.imbalance == Approx(1.0));  // by count, perfectly balanced
  const kpn::ResolvedNetwork hinted = unbalanced();
  CHECK(true_imbalance(hinted, p.rank, 2) > 1.5);
  CHECK((heavy_stages_on(net, p.rank, 0) == 3 || heavy_stages_on(net, p.rank, 1) == 3));
}

TEST_CASE("weight hints in the file spread the heavy stages over the ranks", "[distributed][placement]") {
  const kpn::ResolvedNetwork net = unbalanced();
  const d::Placement p = d::place(net, 2);
  CHECK(p.source == "hints");
  const double hinted = true_imbalance(net, p.rank, 2);
  CHECK(hinted < 1.4);  // 3 heavy stages on 2 ranks: the best split is 2 + 1 (1.33)
  CHECK(heavy_stages_on(net, p.rank, 0) >= 1);
  CHECK(heavy_stages_on(net, p.rank, 1) >= 1);
  CHECK(p.imbalance == Approx(hinted).epsilon(0.01));  // the reported figure is the hints' estimate
  REQUIRE(p.load.size() == 2);
  CHECK(p.load[0] + p.load[1] == Approx(1.0));
  CHECK(d::placement_json(net, p, 2).find("\"source\":\"hints\"") != std::string::npos);
  CHECK(d::placement_summary(net, p, 2).find("on the weight hints") != std::string::npos);
}

TEST_CASE("a pilot run's profile spreads the heavy stages over the ranks", "[distributed][placement]") {
  kpn::ResolvedNetwork net = unbalanced();
  for (auto& p : net.processes) p.weight.reset();  // the pilot alone must find the heavy stages
  const d::Profile pilot = d::run_pilot(net, 300, kpn::RuntimeOptions{.cpus = 1});
  CHECK(pilot.ended == "cut");  // a million messages take far longer than 300 ms
  REQUIRE(pilot.cpu_s.size() == net.processes.size());
  REQUIRE(pilot.messages.size() == net.channels.size());
  CHECK(pilot.messages.front() > 0);
  const d::Placement p = d::place(net, 2, &pilot);
  CHECK(p.source == "pilot");
  CHECK(heavy_stages_on(net, p.rank, 0) >= 1);
  CHECK(heavy_stages_on(net, p.rank, 1) >= 1);
  CHECK(true_imbalance(unbalanced(), p.rank, 2) < 1.4);
  CHECK(d::placement_json(net, p, 2).find("\"pilot\":{\"ms\":300") != std::string::npos);
}

TEST_CASE("a pilot run of a network that ends sooner profiles the whole run", "[distributed][placement]") {
  const kpn::ResolvedNetwork net = unbalanced({{"count", "100"}, {"heavy_us", "0"}});
  const d::Profile pilot = d::run_pilot(net, 10'000, kpn::RuntimeOptions{.cpus = 1});
  CHECK(pilot.ended == "ended");
  CHECK(pilot.wall_s < 10.0);
  for (std::uint64_t m : pilot.messages) CHECK(m == 100);
}

TEST_CASE("processes with a rank in the file keep it whatever the weights say", "[distributed][placement]") {
  kpn::ResolvedNetwork net = unbalanced();
  for (auto& p : net.processes) {
    if (p.declaration == "heavy") p.rank = 1;
  }
  const d::Placement p = d::place(net, 2);
  CHECK(heavy_stages_on(net, p.rank, 1) == 3);
}
