#include "schedulers/partition.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

#include <metis.h>

namespace kpn::partition {
namespace {

// METIS counts in 32-bit idx_t (Debian's build) and sums weights, so each kind of weight is scaled to
// total at most kWeightBudget, and raised to at least 1 (METIS treats 0 as "no weight", which makes a
// process that has not run yet free to pile up anywhere).
constexpr std::uint64_t kWeightBudget = std::uint64_t{1} << 28;

std::vector<std::uint64_t> normalized(const std::vector<std::uint64_t>& w) {
  const long double total = std::accumulate(w.begin(), w.end(), 0.0L);
  const long double factor = total > kWeightBudget ? kWeightBudget / total : 1.0L;
  std::vector<std::uint64_t> out(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) out[i] = 1 + static_cast<std::uint64_t>(w[i] * factor);
  return out;
}

// The undirected graph with parallel edges merged and self-loops dropped, as METIS wants it.
struct Adjacency {
  std::vector<std::vector<std::pair<std::size_t, std::uint64_t>>> neighbours;
  std::size_t edge_count = 0;  // undirected edges after merging
};

Adjacency adjacency(const Graph& g) {
  Adjacency adj;
  const std::size_t n = g.vertex_weight.size();
  adj.neighbours.resize(n);
  std::vector<std::uint64_t> raw;
  raw.reserve(g.edges.size());
  for (const auto& e : g.edges) raw.push_back(e.weight);
  const std::vector<std::uint64_t> w = normalized(raw);
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const auto& e = g.edges[i];
    if (e.a == e.b || e.a >= n || e.b >= n) continue;
    adj.neighbours[e.a].emplace_back(e.b, w[i]);
    adj.neighbours[e.b].emplace_back(e.a, w[i]);
  }
  for (auto& list : adj.neighbours) {
    std::sort(list.begin(), list.end());
    std::size_t out = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (out > 0 && list[out - 1].first == list[i].first) {
        list[out - 1].second += list[i].second;
      } else {
        list[out++] = list[i];
      }
    }
    list.resize(out);
    adj.edge_count += out;
  }
  adj.edge_count /= 2;
  return adj;
}

int fixed_part(const Graph& g, std::size_t v, int nparts) {
  if (g.fixed.empty() || g.fixed[v] < 0) return -1;
  return g.fixed[v] % nparts;
}

std::optional<std::vector<int>> metis(const Graph& g, const std::vector<std::uint64_t>& vw, const Adjacency& adj,
                                      int nparts) {
  const std::size_t n = vw.size();
  std::vector<idx_t> xadj{0}, adjncy, vwgt, adjwgt;
  xadj.reserve(n + 1);
  for (std::size_t v = 0; v < n; ++v) {
    vwgt.push_back(static_cast<idx_t>(vw[v]));
    for (const auto& [u, w] : adj.neighbours[v]) {
      adjncy.push_back(static_cast<idx_t>(u));
      adjwgt.push_back(static_cast<idx_t>(w));
    }
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, np = nparts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1;  // the same graph gives the same partition, run after run
  std::vector<idx_t> part(n, 0);
  const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr, adjwgt.data(), &np,
                                     nullptr, nullptr, options, &objval, part.data());
  if (rc != METIS_OK) return std::nullopt;
  std::vector<int> out(n);
  for (std::size_t v = 0; v < n; ++v) {
    const int f = fixed_part(g, v, nparts);
    out[v] = f >= 0 ? f : static_cast<int>(part[v]);
  }
  return out;
}

// Vertices in breadth-first order over the graph (components in index order), cut into consecutive chunks
// of about the average weight: neighbours along a pipeline or a ring land in the same chunk.
std::vector<int> chunks(const Graph& g, const std::vector<std::uint64_t>& vw, const Adjacency& adj, int nparts) {
  const std::size_t n = vw.size();
  std::vector<int> part(n, -1);
  std::vector<std::size_t> order;
  std::vector<bool> seen(n, false);
  long double free_total = 0;
  for (std::size_t v = 0; v < n; ++v) {
    if (const int f = fixed_part(g, v, nparts); f >= 0) {
      part[v] = f;
      seen[v] = true;
    } else {
      free_total += vw[v];
    }
  }
  for (std::size_t root = 0; root < n; ++root) {
    if (seen[root]) continue;
    seen[root] = true;
    const std::size_t start = order.size();
    order.push_back(root);
    for (std::size_t next = start; next < order.size(); ++next) {
      for (const auto& [u, w] : adj.neighbours[order[next]]) {
        if (!seen[u]) {
          seen[u] = true;
          order.push_back(u);
        }
      }
    }
  }
  const long double average = free_total / nparts;
  long double prefix = 0;
  for (std::size_t v : order) {
    const long double middle = prefix + vw[v] / 2.0L;
    part[v] = std::min(nparts - 1, static_cast<int>(middle / average));
    prefix += vw[v];
  }
  return part;
}

// Heaviest vertex first onto the lightest part; ties go to the part holding most of its edge weight.
std::vector<int> lightest_first(const Graph& g, const std::vector<std::uint64_t>& vw, const Adjacency& adj, int nparts) {
  const std::size_t n = vw.size();
  std::vector<int> part(n, -1);
  std::vector<std::uint64_t> load(static_cast<std::size_t>(nparts), 0);
  std::vector<std::size_t> order;
  for (std::size_t v = 0; v < n; ++v) {
    if (const int f = fixed_part(g, v, nparts); f >= 0) {
      part[v] = f;
      load[static_cast<std::size_t>(f)] += vw[v];
    } else {
      order.push_back(v);
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return vw[a] > vw[b]; });
  std::vector<std::uint64_t> affinity(static_cast<std::size_t>(nparts));
  for (std::size_t v : order) {
    std::fill(affinity.begin(), affinity.end(), 0);
    for (const auto& [u, w] : adj.neighbours[v]) {
      if (part[u] >= 0) affinity[static_cast<std::size_t>(part[u])] += w;
    }
    std::size_t best = 0;
    for (std::size_t p = 1; p < load.size(); ++p) {
      if (load[p] < load[best] || (load[p] == load[best] && affinity[p] > affinity[best])) best = p;
    }
    part[v] = static_cast<int>(best);
    load[best] += vw[v];
  }
  return part;
}

double imbalance_of(const std::vector<std::uint64_t>& vw, const std::vector<int>& part, int nparts) {
  std::vector<long double> load(static_cast<std::size_t>(nparts), 0);
  long double total = 0;
  for (std::size_t v = 0; v < vw.size(); ++v) {
    load[static_cast<std::size_t>(part[v])] += vw[v];
    total += vw[v];
  }
  if (total == 0) return 1.0;
  return static_cast<double>(*std::max_element(load.begin(), load.end()) / (total / nparts));
}

bool has_empty_part(const std::vector<int>& part, int nparts) {
  std::vector<bool> used(static_cast<std::size_t>(nparts), false);
  for (int p : part) used[static_cast<std::size_t>(p)] = true;
  return std::find(used.begin(), used.end(), false) != used.end();
}

}  // namespace

const char* to_string(Method m) noexcept {
  switch (m) {
    case Method::Trivial: return "trivial";
    case Method::Metis: return "metis";
    case Method::Chunks: return "chunks";
    case Method::LightestFirst: return "lightest-first";
  }
  return "?";
}

double imbalance(const Graph& g, const std::vector<int>& part, int nparts) {
  return imbalance_of(normalized(g.vertex_weight), part, nparts);
}

std::uint64_t cut_weight(const Graph& g, const std::vector<int>& part) {
  std::uint64_t cut = 0;
  for (const auto& e : g.edges) {
    if (e.a != e.b && part[e.a] != part[e.b]) cut += e.weight;
  }
  return cut;
}

Result partition_graph(const Graph& g, int nparts, double tolerance) {
  nparts = std::max(nparts, 1);
  const std::size_t n = g.vertex_weight.size();
  Result r;
  auto finish = [&](std::vector<int> part, Method m) {
    r.part = std::move(part);
    r.method = m;
    r.imbalance = n == 0 ? 1.0 : imbalance(g, r.part, nparts);
    r.cut = cut_weight(g, r.part);
    return r;
  };
  if (nparts == 1) return finish(std::vector<int>(n, 0), Method::Trivial);
  if (n <= static_cast<std::size_t>(nparts)) {
    std::vector<int> part(n);
    for (std::size_t v = 0; v < n; ++v) {
      const int f = fixed_part(g, v, nparts);
      part[v] = f >= 0 ? f : static_cast<int>(v);
    }
    return finish(std::move(part), Method::Trivial);
  }

  const std::vector<std::uint64_t> vw = normalized(g.vertex_weight);
  const Adjacency adj = adjacency(g);
  const double bound = best_imbalance(g, nparts) * (1.0 + tolerance) + 1e-12;
  auto acceptable = [&](const std::vector<int>& part) {
    return imbalance_of(vw, part, nparts) <= bound && !has_empty_part(part, nparts);
  };

  std::vector<std::pair<std::vector<int>, Method>> tried;
  // METIS is not asked when one vertex outweighs a part's share: its balance target is then out of reach,
  // and its recursive bisection of the coarse graph can leave one side empty, which METIS 5.1 reports
  // with a printf to the program's standard output ("***Cannot bisect a graph with 0 vertices!", seen
  // from 3.4 shares up in 20,000 random graphs, never below one share). The placement is then decided by
  // where the heavy vertex goes, which the greedy placements below handle.
  const std::uint64_t heaviest = *std::max_element(vw.begin(), vw.end());
  const long double share =
      std::accumulate(vw.begin(), vw.end(), 0.0L) / static_cast<long double>(nparts);
  r.metis_skipped = static_cast<long double>(heaviest) > share;
  if (adj.edge_count > 0 && !r.metis_skipped) {
    if (auto part = metis(g, vw, adj, nparts)) {
      if (acceptable(*part)) return finish(std::move(*part), Method::Metis);
      r.metis_rejected = true;
      tried.emplace_back(std::move(*part), Method::Metis);
    }
  }
  tried.emplace_back(chunks(g, vw, adj, nparts), Method::Chunks);
  tried.emplace_back(lightest_first(g, vw, adj, nparts), Method::LightestFirst);
  // The cheapest by placement_cost: a greedy placement that balances a little better but sends far more
  // messages between parts loses.
  std::size_t best = 0;
  double best_cost = placement_cost(g, tried[0].first, nparts);
  for (std::size_t i = 1; i < tried.size(); ++i) {
    if (const double cost = placement_cost(g, tried[i].first, nparts); cost < best_cost) {
      best = i;
      best_cost = cost;
    }
  }
  return finish(std::move(tried[best].first), tried[best].second);
}

double placement_cost(const Graph& g, const std::vector<int>& part, int nparts) {
  std::uint64_t total = 0;
  for (const auto& e : g.edges) total += e.a != e.b ? e.weight : 0;
  const double cut_share = total > 0 ? static_cast<double>(cut_weight(g, part)) / static_cast<double>(total) : 0.0;
  return imbalance(g, part, nparts) * (1.0 + cut_share);
}

double best_imbalance(const Graph& g, int nparts) {
  if (g.vertex_weight.empty()) return 1.0;
  nparts = std::max(nparts, 1);
  std::vector<std::uint64_t> vw = normalized(g.vertex_weight);
  std::sort(vw.begin(), vw.end(), std::greater<>());
  const long double total = std::accumulate(vw.begin(), vw.end(), 0.0L);
  const std::size_t p = static_cast<std::size_t>(nparts);
  // Pigeonhole: of the k*p + 1 heaviest vertices some part holds k + 1, so the heaviest part weighs at
  // least the k + 1 lightest of them. k = 0 is the heaviest vertex; whole vertices make the average alone
  // a bound no partition may reach (10 equal vertices on 3 parts: 4, not 3.33).
  long double bound = total / nparts;
  std::vector<long double> prefix(vw.size() + 1, 0);
  for (std::size_t i = 0; i < vw.size(); ++i) prefix[i + 1] = prefix[i] + vw[i];
  for (std::size_t k = 0; k * p + 1 <= vw.size(); ++k) {
    bound = std::max(bound, prefix[k * p + 1] - prefix[k * p - k]);
  }
  return static_cast<double>(bound / (total / nparts));
}

namespace {

// Maximum-weight perfect matching of rows to columns (Hungarian method with potentials, O(n^3)), on
// cost = -gain. Returns col_of_row.
std::vector<int> best_assignment(const std::vector<std::vector<long long>>& gain) {
  const std::size_t n = gain.size();
  constexpr long long kInf = std::numeric_limits<long long>::max() / 4;
  std::vector<long long> u(n + 1, 0), v(n + 1, 0), min_v(n + 1);
  std::vector<std::size_t> row_of_col(n + 1, 0), way(n + 1, 0);
  std::vector<bool> used(n + 1);
  for (std::size_t row = 1; row <= n; ++row) {
    row_of_col[0] = row;
    std::size_t col0 = 0;
    std::fill(min_v.begin(), min_v.end(), kInf);
    std::fill(used.begin(), used.end(), false);
    do {
      used[col0] = true;
      const std::size_t r0 = row_of_col[col0];
      long long delta = kInf;
      std::size_t col1 = 0;
      for (std::size_t col = 1; col <= n; ++col) {
        if (used[col]) continue;
        const long long cur = -gain[r0 - 1][col - 1] - u[r0] - v[col];
        if (cur < min_v[col]) {
          min_v[col] = cur;
          way[col] = col0;
        }
        if (min_v[col] < delta) {
          delta = min_v[col];
          col1 = col;
        }
      }
      for (std::size_t col = 0; col <= n; ++col) {
        if (used[col]) {
          u[row_of_col[col]] += delta;
          v[col] -= delta;
        } else {
          min_v[col] -= delta;
        }
      }
      col0 = col1;
    } while (row_of_col[col0] != 0);
    do {
      const std::size_t col1 = way[col0];
      row_of_col[col0] = row_of_col[col1];
      col0 = col1;
    } while (col0 != 0);
  }
  std::vector<int> col_of_row(n, 0);
  for (std::size_t col = 1; col <= n; ++col) col_of_row[row_of_col[col] - 1] = static_cast<int>(col - 1);
  return col_of_row;
}

}  // namespace

std::vector<int> relabel(const std::vector<int>& part, const std::vector<int>& current, int nparts) {
  const auto np = static_cast<std::size_t>(std::max(nparts, 1));
  std::vector<std::vector<long long>> gain(np, std::vector<long long>(np, 0));
  for (std::size_t v = 0; v < part.size() && v < current.size(); ++v) {
    if (current[v] >= 0 && static_cast<std::size_t>(current[v]) < np) {
      ++gain[static_cast<std::size_t>(part[v])][static_cast<std::size_t>(current[v])];
    }
  }
  return best_assignment(gain);
}

}  // namespace kpn::partition
