#pragma once
// Pheet's *places* (seed 001): the order in which a thief visits its victims, nearest in the machine
// first, so that stolen work stays near the caches and memory it used. Computed once per run from the
// topology and the worker -> PU map; a thief then walks the groups in order, each from a random member.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "runtime/pinning.hpp"

namespace kpn {

struct Places {
  // victims[w]: every worker but w, grouped by how near it is to w (same core first, the rest last), by
  // index within a group.
  std::vector<std::vector<std::size_t>> victims;
  // group_end[w][l]: one past the last of victims[w] at Place l; group l is [group_end[w][l-1], group_end[w][l]).
  std::vector<std::array<std::size_t, kPlaces>> group_end;
};

// With no topology (workers not pinned), or a worker not pinned (pu -1), every victim is `other`: one group,
// which thieves visit from a random member on.
Places compute_places(const CpuTopology* topology, std::span<const int> worker_pus);

}  // namespace kpn
