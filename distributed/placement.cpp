#include "distributed/placement.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "networks/topology_error.hpp"
#include "runtime/json.hpp"
#include "schedulers/partition.hpp"

namespace kpn::distributed {
namespace {

partition::Graph graph_of(const ResolvedNetwork& net) {
  partition::Graph g;
  g.vertex_weight.assign(net.processes.size(), 1);
  for (const auto& c : net.channels) g.edges.push_back({c.from, c.to, 1});
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
  const partition::Graph g = graph_of(net);
  Placement p;
  p.cut = partition::cut_weight(g, rank);
  p.imbalance = net.processes.empty() ? 1.0 : partition::imbalance(g, rank, ranks);
  p.rank = std::move(rank);
  p.method = std::move(method);
  return p;
}

Placement place(const ResolvedNetwork& net, int ranks) {
  check_ranks(net, ranks);
  partition::Graph g = graph_of(net);
  bool all_fixed = !net.processes.empty();
  g.fixed.assign(net.processes.size(), -1);
  for (std::size_t i = 0; i < net.processes.size(); ++i) {
    const ResolvedProcess& p = net.processes[i];
    if (p.rank) g.fixed[i] = *p.rank;
    else if (p.rank_round_robin) g.fixed[i] = p.replica % ranks;  // rank: round-robin (docs/topology.md)
    else all_fixed = false;
  }
  if (all_fixed) return described(net, g.fixed, ranks, "explicit");
  const partition::Result r = partition::partition_graph(g, ranks);
  return described(net, r.part, ranks, method_name(r.method));
}

std::string placement_summary(const ResolvedNetwork& net, const Placement& p, int ranks) {
  std::string out = fmt::format("placement: {} rank{} ({}, {} of {} channels cross ranks)\n", ranks, ranks == 1 ? "" : "s",
                                p.method, p.cut, net.channels.size());
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
  return fmt::format("{{\"ranks\":{},\"method\":{},\"cut\":{},\"channels\":{},\"imbalance\":{:.4g},\"processes\":{{{}}}}}", ranks,
                     json_string(p.method), p.cut, net.channels.size(), p.imbalance, procs);
}

}  // namespace kpn::distributed
