#pragma once
// Which rank runs each process of a resolved network (replicas expanded). A process whose declaration
// has `rank:` goes where it says (its own rank, its entry of a list, its turn in a range A..B, or replica
// mod the rank count for `round-robin`: resolve.cpp); the others are divided by the METIS partitioner of schedulers/partition.hpp:
// one vertex per process (equal CPU weights), one edge per channel, the fixed ones fixed, into one part
// per rank, balancing the count of processes and cutting few channels. Rank 0 computes it and broadcasts
// it (the runner), so every rank builds its part of the same placement.

#include <cstdint>
#include <string>
#include <vector>

#include "networks/resolved.hpp"

namespace kpn::distributed {

struct Placement {
  std::vector<int> rank;       // one per process of the resolved network
  std::string method;          // "explicit", "metis", "chunks", "lightest-first", "trivial"
  std::uint64_t cut = 0;       // channels between ranks
  double imbalance = 1.0;      // most processes on one rank / average
};

// Throws TopologyError (file:line:col of each `rank:`) if a `rank:` is not below `ranks`.
void check_ranks(const ResolvedNetwork& net, int ranks);
Placement place(const ResolvedNetwork& net, int ranks);
// Recomputes cut and imbalance of a placement received from rank 0.
Placement described(const ResolvedNetwork& net, std::vector<int> rank, int ranks, std::string method);

// "placement: 2 ranks (metis, 2 of 17 channels cross): rank 0: 9 processes (master, worker[0..7]) ..."
std::string placement_summary(const ResolvedNetwork& net, const Placement& p, int ranks);
// {"ranks":R,"method":...,"cut":...,"imbalance":...,"processes":{"name":rank,...}}
std::string placement_json(const ResolvedNetwork& net, const Placement& p, int ranks);

}  // namespace kpn::distributed
