#pragma once
// Graph partitioning for the gp policy: split a weighted process graph into `nparts` parts of nearly equal
// vertex weight with little edge weight between parts (METIS_PartGraphKway), and relabel a new partition
// so that it moves as few processes as possible from where they are.
//
// METIS is used only where it is safe and useful, and its result is checked:
// - nparts <= 1: everything in part 0 (Debian's METIS 5.1.0 divides by zero in METIS_PartGraphKway when
//   nparts == 1);
// - no more vertices than parts: one vertex per part;
// - no edges: METIS has nothing to cut, so a greedy placement balances the weights;
// - a METIS partition whose heaviest part exceeds a lower bound of the best achievable load
//   (best_imbalance) by more than `tolerance`
//   (METIS can leave tiny graphs badly unbalanced, or a part empty) is compared with two greedy placements
//   (graph-order chunks, and heaviest-first onto the lightest part), and the one of lowest
//   placement_cost wins.
// Vertices with a fixed part keep it in every method.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kpn::partition {

struct Graph {
  std::vector<std::uint64_t> vertex_weight;  // one per vertex; any scale (0 is treated as the lightest)
  struct Edge {
    std::size_t a = 0;
    std::size_t b = 0;
    std::uint64_t weight = 1;                // 0 is treated as the lightest
  };
  std::vector<Edge> edges;                   // undirected; parallel edges and self-loops allowed
  std::vector<int> fixed;                    // empty, or one per vertex: the part it must be in, or -1
};

enum class Method { Trivial, Metis, Chunks, LightestFirst };
const char* to_string(Method m) noexcept;

struct Result {
  std::vector<int> part;    // one per vertex, each in [0, nparts)
  Method method = Method::Trivial;
  double imbalance = 1.0;   // heaviest part / average part (1.0 is perfect)
  std::uint64_t cut = 0;    // total weight of edges between parts
  bool metis_rejected = false;  // METIS ran but its partition was not balanced enough
  bool metis_skipped = false;   // METIS was not asked: one vertex outweighs a part's share (partition.cpp)
};

// Partitions `g` into `nparts` (>= 1) parts. `tolerance` is the allowed excess of the heaviest part over
// the best achievable load (max(average, heaviest vertex)), e.g. 0.1 for 10 %.
Result partition_graph(const Graph& g, int nparts, double tolerance = 0.10);

// A lower bound on the imbalance of any partition of `g` into `nparts` parts: the average part, the
// heaviest vertex, or what whole vertices force by pigeonhole, whichever is heavier, over the average.
double best_imbalance(const Graph& g, int nparts);
// Heaviest part / average part of `part` under `g`'s vertex weights.
double imbalance(const Graph& g, const std::vector<int>& part, int nparts);
// A partition's estimated cost relative to a perfect one: imbalance x (1 + share of the edge weight that
// crosses parts). The heaviest part bounds the run time, and every message between parts costs a wake-up
// on another worker and cache misses on both, in the order of the work of a fine-grained process.
double placement_cost(const Graph& g, const std::vector<int>& part, int nparts);
// Total weight of the edges whose ends are in different parts.
std::uint64_t cut_weight(const Graph& g, const std::vector<int>& part);

// A relabelling of `part` (labels [0, nparts)) that keeps as many vertices as possible where they are:
// returns `label` with label[new part] = worker, a permutation of [0, nparts) maximising the number of
// vertices i with label[part[i]] == current[i] (current[i] may be -1: nowhere yet).
std::vector<int> relabel(const std::vector<int>& part, const std::vector<int>& current, int nparts);

}  // namespace kpn::partition
