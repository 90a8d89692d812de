#pragma once
// A resolved network as a Graphviz DOT digraph: processes as nodes (labelled with their kind), channels as
// edges (labelled with ports and capacity).

#include <string>

#include "networks/resolved.hpp"
#include "runtime/export.hpp"

namespace kpn {

KPN_EXPORT std::string to_dot(const ResolvedNetwork& network);

}  // namespace kpn
