#pragma once
// Which rank runs each process of a resolved network (replicas expanded). A process whose declaration
// has `rank:` goes where it says (its own rank, its entry of a list, its turn in a range A..B, or replica
// mod the rank count for `round-robin`: resolve.cpp); the others are divided by the METIS partitioner of
// schedulers/partition.hpp: one vertex per process, one edge per channel, the fixed ones fixed, into one
// part per rank, balancing the vertex weight and cutting little edge weight. The weights come from
// (`source`, in this order of precedence):
//   "pilot"  a pilot run's profile (pilot.hpp): vertex = its CPU time, edge = its messages;
//   "hints"  the file's `weight:` hints (a process without one weighs 1), every edge 1;
//   "equal"  neither: every vertex and edge 1, so the ranks hold equal numbers of processes.
// Rank 0 computes it and broadcasts it (run.hpp), so every rank builds its part of the same placement.

#include <cstdint>
#include <string>
#include <vector>

#include "distributed/profile.hpp"
#include "networks/resolved.hpp"

namespace kpn::distributed {

struct Placement {
  std::vector<int> rank;       // one per process of the resolved network
  std::string method;          // "explicit", "metis", "chunks", "lightest-first", "trivial" (or "rank 0's")
  std::string source = "equal";  // where the weights came from: "pilot", "hints" or "equal"
  std::uint64_t cut = 0;       // channels between ranks
  std::uint64_t cut_messages = 0;  // with a pilot: its messages on those channels
  double imbalance = 1.0;      // heaviest rank's estimated CPU / the average rank's
  std::vector<double> load;    // per rank: its share of the estimated CPU (the weights), summing to 1
  Profile pilot;               // the profile, when source is "pilot"
};

// Throws TopologyError (file:line:col of each `rank:`) if a `rank:` is not below `ranks`.
void check_ranks(const ResolvedNetwork& net, int ranks);
// `pilot`: a pilot run's profile, or nullptr for the hints or equal weights.
Placement place(const ResolvedNetwork& net, int ranks, const Profile* pilot = nullptr);
// A placement received from rank 0, with its figures estimated from the hints (a rank other than 0
// has no pilot profile; only rank 0 prints and reports them).
Placement described(const ResolvedNetwork& net, std::vector<int> rank, int ranks, std::string method);

// "placement: 2 ranks (metis on the hints, 2 of 17 channels cross ranks, estimated CPU 50% 50%)", then
// one line per rank with its processes.
std::string placement_summary(const ResolvedNetwork& net, const Placement& p, int ranks);
// {"ranks":R,"method":...,"source":...,"cut":...,"imbalance":...,"load":[...],"pilot":...,"processes":{"name":rank,...}}
std::string placement_json(const ResolvedNetwork& net, const Placement& p, int ranks);

}  // namespace kpn::distributed
