#pragma once
// The network a distributed run runs, as every rank obtains it: a YAML file with --set values (kpn-run),
// or a topology built in C++ (networks/topology_builder.hpp) by the same program on every rank. Each rank
// resolves it itself; run.hpp checks that every rank holds the same network (by a hash: a stale copy of a
// file or a program that builds something else on one rank is an error, not a silent difference).

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "networks/resolved.hpp"
#include "networks/topology.hpp"

namespace kpn::distributed {

struct NetworkSource {
  // Names the network in the error when ranks differ ("'net.yaml' and the --set values").
  std::string what;
  // What every rank must agree on, computed before resolving (so that a file that fails to load on one
  // rank is still told apart); empty: the resolved network's own hash (network_hash below).
  std::function<std::uint64_t()> fingerprint;
  // The network, on this rank. Throws TopologyError (with file:line:column) or std::invalid_argument.
  std::function<ResolvedNetwork()> resolve;
};

// A YAML file and its --set values ("name=value" each; a malformed one is std::invalid_argument).
NetworkSource file_source(std::string file, std::vector<std::string> sets);
// A topology described in C++, with parameter overrides (--set's pairs).
NetworkSource topology_source(Topology topology, std::vector<std::pair<std::string, std::string>> overrides = {});

// FNV-1a over the file's bytes and the --set pairs: what every rank must agree on.
std::uint64_t network_hash(const std::string& file, const std::vector<std::string>& sets);
// FNV-1a over a resolved network: its processes (name, kind, arguments, options, rank, weight) and its
// channels (ends, capacity, type), in order.
std::uint64_t network_hash(const ResolvedNetwork& net);

}  // namespace kpn::distributed
