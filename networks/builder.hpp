#pragma once
// Turns a resolved network into a kpn::Network of live channels and process bodies, ready to run.

#include "channels/network.hpp"
#include "networks/kinds.hpp"
#include "networks/resolved.hpp"
#include "runtime/export.hpp"

namespace kpn {

// Kinds print their results to `results`, which must outlive the run. A kind's factory that rejects its
// arguments makes this throw a TopologyError at the process's declaration, naming the process.
KPN_EXPORT Network build_network(const ResolvedNetwork& resolved, ResultSink& results);

}  // namespace kpn
