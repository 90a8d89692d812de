#pragma once
// What a pilot run measured of a network, for the placement (placement.hpp): each process's CPU time and
// each channel's message count, by the index of the resolved network, and how the pilot ended.

#include <cstdint>
#include <string>
#include <vector>

#include "networks/resolved.hpp"
#include "runtime/report.hpp"

namespace kpn::distributed {

struct Profile {
  std::vector<double> cpu_s;               // one per process of the resolved network
  std::vector<std::uint64_t> messages;     // one per channel
  unsigned ms = 0;                         // the pilot's length as asked (--pilot-ms)
  double wall_s = 0;                       // how long it ran (less when the network ended sooner)
  std::string ended;                       // "ended" (the network finished), "cut" (stopped after ms), or the failure
};

// Matches a run's report to the network by name: a process or channel the report lacks (it never ran)
// counts 0; a process spawned at run time (tree) is not in the resolved network and counts for nothing.
Profile profile_of(const ResolvedNetwork& net, const RunReport& report);

}  // namespace kpn::distributed
