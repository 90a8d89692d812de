#pragma once
// Turns a resolved network into a kpn::Network of live channels and process bodies, ready to run.

#include "channels/network.hpp"
#include "networks/kinds.hpp"
#include "networks/resolved.hpp"

namespace kpn {

// Kinds print their results to `results`, which must outlive the run. A kind's factory that rejects its
// arguments throws; the error names the process.
Network build_network(const ResolvedNetwork& resolved, ResultSink& results);

}  // namespace kpn
