#pragma once
// A topology with every parameter substituted, every replica and connection expanded, and every rule
// checked: what the builder turns into live processes and channels, and what --dot draws.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "networks/kinds.hpp"
#include "networks/limits.hpp"
#include "networks/topology.hpp"
#include "runtime/export.hpp"
#include "runtime/process_options.hpp"

namespace kpn {

struct KPN_EXPORT ResolvedProcess {
  std::string name;  // "master", or "worker[3]" for a replicated declaration
  std::string declaration;
  Location where;  // of its declaration, for errors found later (a kind rejecting its arguments)
  const KindSpec* kind = nullptr;
  int replica = 0;
  int replicas = 1;
  // Every argument of the kind, defaults filled in (resolve() always sets it; the builder reads a null one as
  // no arguments). The replicas of one declaration share one map (their arguments are the same): a declaration
  // of 100,000 replicas holds one copy, not 100,000.
  std::shared_ptr<const std::map<std::string, Value>> args;
  ProcessOptions options;
  // `rank:` of its declaration (a --distributed run places it there; docs/topology.md): this replica's rank
  // (from `rank: N`, its entry of a list, or its turn in a range `A..B`), or none with rank_round_robin
  // (`rank: round-robin`: replica mod the run's rank count, known only at launch).
  std::optional<int> rank;
  bool rank_round_robin = false;
  std::string rank_range;  // "A..B" when the rank comes from a range, for the error of a rank beyond the count
  Location rank_where;     // where that rank (the list's entry) is written
  // `weight:` of its declaration (this replica's entry of a list): its relative CPU work, which a
  // --distributed run's placement balances over the ranks; none: not given (the placement counts 1).
  std::optional<double> weight;
  std::map<std::string, std::vector<std::size_t>> ports;  // port -> channel indexes, in order
};

struct KPN_EXPORT ResolvedChannel {
  std::string name;  // "master.out[3] -> worker[3].in"
  std::size_t from = 0;
  std::string from_port;
  std::size_t to = 0;
  std::string to_port;
  std::size_t capacity = 1;
  std::string type;
};

struct ResolvedNetwork {
  std::string name;
  std::string file;
  std::vector<std::pair<std::string, std::string>> params;  // final values, in declaration order
  std::vector<ResolvedProcess> processes;
  std::vector<ResolvedChannel> channels;
};

// How far a topology may expand: replicas of one declaration (also the bound of a channel declaration's
// `count` and `shift`), processes and channels in all. The defaults are networks/limits.hpp's; a caller that
// must stay smaller (the fuzzer, whose every input is resolved and built under the sanitizers within a memory
// limit) passes its own.
struct ResolveLimits {
  std::int64_t replicas = limits::kMaxReplicas;
  std::size_t processes = limits::kMaxProcesses;
  std::size_t channels = limits::kMaxChannels;
};

// `overrides` are --set name=value pairs. Throws TopologyError listing every problem found, the loader's
// (Topology::load_errors) first. The limits are checked per declaration before anything is expanded: a file
// past them is refused at the first declaration that crosses one, whatever it would have grown to.
KPN_EXPORT ResolvedNetwork resolve(const Topology& topology, const std::vector<std::pair<std::string, std::string>>& overrides,
                                   const ResolveLimits& limits = {});

}  // namespace kpn
