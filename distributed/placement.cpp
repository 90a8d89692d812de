#include "distributed/placement.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "networks/topology_error.hpp"
#include "runtime/json.hpp"
#include "schedulers/partition.hpp"

namespace kpn::distributed {
namespace {

// A hint's weight in the graph's integer units: weights are relative, and a thousandth of the default
// weight (1) is finer than any hint means. At most kMaxWeight x 1000 = 10^12 each; the partitioner
// scales the sums down for METIS.
constexpr double kHintUnits = 1000.0;

bool has_hints(const ResolvedNetwork& net) {
  return std::any_of(net.processes.begin(), net.processes.end(), [](const ResolvedProcess& p) { return p.weight.has_value(); });
}

// The graph METIS sees. With a pilot: CPU microseconds (at least 1, so that a process the pilot never
// ran still counts a little) and messages (at least 1: a channel the pilot left idle still joins its
// ends a little).
partition::Graph graph_of(const ResolvedNetwork& net, const Profile* pilot, std::string& source) {
  partition::Graph g;
  g.vertex_weight.assign(net.processes.size(), 1);
  source = "equal";
  if (pilot != nullptr) {
    source = "pilot";
    for (std::size_t i = 0; i < net.processes.size(); ++i) {
      g.vertex_weight[i] = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(pilot->cpu_s[i] * 1e6)));
    }
  } else if (has_hints(net)) {
    source = "hints";
    for (std::size_t i = 0; i < net.processes.size(); ++i) {
      const double w = net.processes[i].weight.value_or(1.0);
      g.vertex_weight[i] = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(w * kHintUnits)));
    }
  }
  for (std::size_t i = 0; i < net.channels.size(); ++i) {
    const auto& c = net.channels[i];
    g.edges.push_back({c.from, c.to, pilot != nullptr ? std::max<std::uint64_t>(1, pilot->messages[i]) : 1});
  }
  return g;
}

const char* method_name(partition::Method m) {
  switch (m) {
    case partition::Method::Trivial: return "trivial";
    case partition::Method::Metis: return "metis";
    case partition::Method::Chunks: return "chunks";
    case partition::Method::LightestFirst: return "lightest-first";
  }
  return "unknown";
}

// The figures of placement `p` under the weights of `g`.
void describe(const ResolvedNetwork& net, const partition::Graph& g, int ranks, const Profile* pilot, Placement& p) {
  p.cut = 0;
  p.cut_messages = 0;
  for (std::size_t i = 0; i < net.channels.size(); ++i) {
    if (p.rank[net.channels[i].from] == p.rank[net.channels[i].to]) continue;
    ++p.cut;
    if (pilot != nullptr) p.cut_messages += pilot->messages[i];
  }
  p.imbalance = net.processes.empty() ? 1.0 : partition::imbalance(g, p.rank, ranks);
  p.load.assign(static_cast<std::size_t>(ranks), 0.0);
  double total = 0;
  for (std::size_t i = 0; i < net.processes.size(); ++i) {
    p.load[static_cast<std::size_t>(p.rank[i])] += static_cast<double>(g.vertex_weight[i]);
    total += static_cast<double>(g.vertex_weight[i]);
  }
  for (double& l : p.load) l = total > 0 ? l / total : 0.0;
}

}  // namespace

void check_ranks(const ResolvedNetwork& net, int ranks) {
  std::vector<Diagnostic> errors;
  std::vector<std::string> seen;  // one error per place in the file (a `rank:`, a list's entry), not per replica
  for (const auto& p : net.processes) {
    if (!p.rank || *p.rank < ranks) continue;
    const std::string key = p.declaration + "@" + p.rank_where.str();
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    const std::string count = fmt::format("the {} rank{} of this run (0 to {})", ranks, ranks == 1 ? "" : "s", ranks - 1);
    errors.push_back(Diagnostic{p.rank_where, p.rank_range.empty()
                                                  ? fmt::format("process '{}': rank {} is beyond {}", p.declaration, *p.rank, count)
                                                  : fmt::format("process '{}': the range {} reaches rank {}, beyond {}", p.declaration,
                                                                p.rank_range, *p.rank, count)});
  }
  if (!errors.empty()) throw TopologyError(std::move(errors));
}

Placement described(const ResolvedNetwork& net, std::vector<int> rank, int ranks, std::string method) {
  Placement p;
  const partition::Graph g = graph_of(net, nullptr, p.source);
  p.rank = std::move(rank);
  p.method = std::move(method);
  describe(net, g, ranks, nullptr, p);
  return p;
}

Placement place(const ResolvedNetwork& net, int ranks, const Profile* pilot) {
  check_ranks(net, ranks);
  Placement p;
  partition::Graph g = graph_of(net, pilot, p.source);
  if (pilot != nullptr) p.pilot = *pilot;
  bool all_fixed = !net.processes.empty();
  g.fixed.assign(net.processes.size(), -1);
  for (std::size_t i = 0; i < net.processes.size(); ++i) {
    const ResolvedProcess& rp = net.processes[i];
    if (rp.rank) g.fixed[i] = *rp.rank;
    else if (rp.rank_round_robin) g.fixed[i] = rp.replica % ranks;  // rank: round-robin (docs/topology.md)
    else all_fixed = false;
  }
  if (all_fixed) {
    p.rank = g.fixed;
    p.method = "explicit";
  } else {
    const partition::Result r = partition::partition_graph(g, ranks);
    p.rank = r.part;
    p.method = method_name(r.method);
  }
  describe(net, g, ranks, pilot, p);
  return p;
}

std::string placement_summary(const ResolvedNetwork& net, const Placement& p, int ranks) {
  std::vector<std::string> shares;
  for (double l : p.load) shares.push_back(fmt::format("{:.0f}%", 100.0 * l));
  const std::string pilot_end = p.pilot.ended == "cut"     ? "cut there"
                                : p.pilot.ended == "ended" ? fmt::format("the network ended after {:.3f} s", p.pilot.wall_s)
                                                           : "it failed: " + p.pilot.ended;
  const std::string source = p.source == "pilot"   ? fmt::format("the profile of a {} ms pilot run ({})", p.pilot.ms, pilot_end)
                             : p.source == "hints" ? std::string("the weight hints")
                                                   : std::string("equal weights");
  std::string out = fmt::format("placement: {} rank{} ({} on {}, {} of {} channels cross ranks{}, estimated CPU per rank {})\n", ranks,
                                ranks == 1 ? "" : "s", p.method, source, p.cut, net.channels.size(),
                                p.source == "pilot" ? fmt::format(" carrying {} of the pilot's messages", p.cut_messages) : "",
                                fmt::join(shares, " "));
  for (int r = 0; r < ranks; ++r) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < net.processes.size(); ++i) {
      if (p.rank[i] == r) names.push_back(net.processes[i].name);
    }
    constexpr std::size_t kShown = 8;
    std::string list = fmt::format("{}", fmt::join(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(std::min(kShown, names.size())), ", "));
    if (names.size() > kShown) list += fmt::format(", ... ({} more)", names.size() - kShown);
    out += fmt::format("  rank {}: {} process{}{}{}\n", r, names.size(), names.size() == 1 ? "" : "es", names.empty() ? "" : ": ", list);
  }
  return out;
}

std::string placement_json(const ResolvedNetwork& net, const Placement& p, int ranks) {
  std::string procs;
  for (std::size_t i = 0; i < net.processes.size(); ++i) {
    procs += fmt::format("{}{}:{}", i ? "," : "", json_string(net.processes[i].name), p.rank[i]);
  }
  std::vector<std::string> load;
  for (double l : p.load) load.push_back(fmt::format("{:.4g}", l));
  std::string pilot = "null";
  if (p.source == "pilot") {
    double cpu = 0;
    for (double c : p.pilot.cpu_s) cpu += c;
    pilot = fmt::format("{{\"ms\":{},\"wall_s\":{:.6f},\"ended\":{},\"cpu_s\":{:.6f}}}", p.pilot.ms, p.pilot.wall_s,
                        json_string(p.pilot.ended), cpu);
  }
  return fmt::format(
      "{{\"ranks\":{},\"method\":{},\"source\":{},\"cut\":{},\"channels\":{},\"cut_messages\":{},\"imbalance\":{:.4g},\"load\":[{}],"
      "\"pilot\":{},\"processes\":{{{}}}}}",
      ranks, json_string(p.method), json_string(p.source), p.cut, net.channels.size(), p.cut_messages, p.imbalance, fmt::join(load, ","),
      pilot, procs);
}

}  // namespace kpn::distributed
