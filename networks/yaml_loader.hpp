#pragma once
// Reads a topology file (YAML; docs/topology.md has the format). The only place that sees yaml-cpp.
// Syntax and shape errors (malformed YAML, unknown or missing keys, values of the wrong shape) throw a
// TopologyError with file, line and column for each; meaning (kinds, ports, types) is checked later by
// resolve().

#include <string>
#include <string_view>

#include "networks/topology.hpp"

namespace kpn {

Topology load_topology_file(const std::string& path);
// `file` names the text in messages.
Topology parse_topology(std::string_view yaml, const std::string& file);

}  // namespace kpn
