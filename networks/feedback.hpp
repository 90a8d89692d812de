#pragma once
// Which outputs of a process feed back into a cycle through it, for the rule on broken channels
// (docs/topology.md, "End of stream and broken channels"): a process with several outputs goes on serving
// the live ones when a reader leaves, but once every output that leaves its cycle is gone and no other
// member of the cycle has a way out, nothing can observe what the cycle computes any more, and the process
// may end (closing its feedback outputs, so that the cycle winds down). Both conditions depend only on the
// topology and on which readers have left, never on the schedule.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "networks/resolved.hpp"

namespace kpn {

struct OutputRoles {
  // Output port -> per channel, in order: does it stay in the cycle? Only ports with at least one such channel
  // are listed (most processes are in no cycle).
  std::map<std::string, std::vector<bool>> feedback;
  bool cycle_has_other_exits = false;  // does another member of its cycle write to a process outside it?
};

// One entry per process of `network`, computed from its strongly connected components.
std::vector<OutputRoles> output_roles(const ResolvedNetwork& network);

}  // namespace kpn
