#pragma once
// Reads a topology file (YAML; docs/topology.md has the format). The only place that sees yaml-cpp.
// Syntax and shape errors (malformed YAML, unknown or missing keys, values of the wrong shape, names that
// break the rules of networks/names.hpp) are reported with file, line and column for each; meaning
// (kinds, ports, types) is checked later by resolve().

#include <string>
#include <string_view>

#include "networks/topology.hpp"
#include "runtime/export.hpp"

namespace kpn {

// Throw a TopologyError at once if anything is wrong.
KPN_EXPORT Topology load_topology_file(const std::string& path);
KPN_EXPORT Topology parse_topology(std::string_view yaml, const std::string& file);  // `file` names the text in messages

// Throw only when nothing can be read (no such file, a directory, malformed YAML, not a map); other
// problems go to Topology::load_errors, for resolve() to report with its own.
KPN_EXPORT Topology read_topology_file(const std::string& path);
KPN_EXPORT Topology read_topology(std::string_view yaml, const std::string& file);

}  // namespace kpn
