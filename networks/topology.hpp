#pragma once
// The topology model: what a network file says, independent of YAML. Values stay as written (text and
// location) until resolution, because their type is known only from what consumes them (a kind's
// argument, a capacity) and a `$parameter` may be overridden from the command line.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "networks/location.hpp"
#include "networks/topology_error.hpp"
#include "runtime/export.hpp"

namespace kpn {

// A scalar as written: literal text, or a reference `$name` to a parameter.
struct KPN_EXPORT Scalar {
  std::string text;
  Location where;
  bool is_param() const noexcept { return !text.empty() && text[0] == '$'; }
  std::string param_name() const { return text.substr(1); }
};

struct ParamDecl {
  std::string name;
  Scalar value;  // the default
};

struct KPN_EXPORT ProcessDecl {
  std::string name;
  Location where;
  Scalar kind;
  std::map<std::string, Scalar> args;
  std::map<std::string, Location> arg_keys;  // where each argument's name is written
  std::optional<Scalar> replicas;    // default 1
  std::optional<Scalar> stack_size;  // bytes; default config::kDefaultStackSize
  std::optional<Scalar> cpu;         // home worker hint, for placement policies
  std::optional<Scalar> priority;    // ProcessOptions::priority, config::kMinPriority to kMaxPriority
  // The MPI rank of a --distributed run (ignored otherwise): `rank: N` (every replica), `rank: A..B` or
  // `rank: round-robin` (replicas dealt over ranks), or a list `rank: [r0, r1, ...]`, one per replica
  // (then `rank` is unset and `rank_list` holds the entries, `rank_list_where` the list).
  std::optional<Scalar> rank;
  std::vector<Scalar> rank_list;
  Location rank_list_where;
  // The relative CPU work of each replica, a hint for the placement of a --distributed run (ignored
  // otherwise): `weight: W` (every replica) or a list `weight: [w0, w1, ...]`, one per replica (then
  // `weight` is unset and `weight_list` holds the entries, `weight_list_where` the list).
  std::optional<Scalar> weight;
  std::vector<Scalar> weight_list;
  Location weight_list_where;
};

// `process.port`, `process[i].port`: one side of a channel declaration.
struct KPN_EXPORT PortRef {
  std::string process;
  std::optional<Scalar> replica;  // an index into the replicas; negative counts from the end
  std::string port;
  Location where;
};

struct KPN_EXPORT ChannelDecl {
  PortRef from;
  PortRef to;
  Location where;
  std::optional<Scalar> capacity;  // default 1
  std::optional<Scalar> shift;     // replica i connects to replica (i + shift)
  std::optional<Scalar> wrap;      // with shift: wrap around (a ring, default) or not (a chain)
  std::optional<Scalar> count;     // channels between two array ports; default 1
};

struct KPN_EXPORT Topology {
  std::string file;
  std::string name;
  std::vector<ParamDecl> params;
  std::vector<ProcessDecl> processes;
  std::vector<ChannelDecl> channels;

  // What read_topology found wrong but did not throw, so that the resolver reports it together with its own
  // findings (one list per file). Declarations the loader could not read are left out of the lists above;
  // the resolver must not report their consequences (an unknown process, an unconnected port) again.
  std::vector<Diagnostic> load_errors;
  std::set<std::string> unreadable_processes;
  bool unreadable_channels = false;
};

}  // namespace kpn
