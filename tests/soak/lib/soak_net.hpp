#pragma once
// The soak test's networks, as plain data: a DAG of nodes joined by streams. Some nodes hide a cycle or
// spawn processes of their own (a ring or feedback loop, a spawner), so the whole covers DAGs, rings,
// feedback loops that only Parks' rule can run (a burst larger than the loop's buffers), early-stopping
// readers, and processes spawned at run time. The same description feeds the sequential oracle
// (oracle.hpp) and the live network (soak_run.hpp), so a failure prints a description that replays.
//
// Invariant: nodes are listed in topological order; every stream has exactly one writer (the node that
// lists it in `outs`) and exactly one reader (the node that lists it in `ins`).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kpn::soak {

using u64 = std::uint64_t;

enum class NodeKind {
  Source,   // writes `count` values, then ends its stream
  Map,      // one value out per value in
  Filter,   // keeps the values its predicate accepts (rate changes: diamonds then need Parks' rule)
  Fork,     // copies every value to both outputs; an output whose reader left is skipped
  Join,     // strict alternation of its two inputs, first ins[0]; once one ends, the rest of the other
  Loop,     // per value: a burst of `burst` values around a ring of `ring` stages, folded into one value
  Spawner,  // per chunk of `chunk` values: spawns a helper on fresh channels that maps them
  Sink,     // reads its stream to the end, or only `limit` values then drops its reader (limit > 0)
};

const char* to_string(NodeKind kind) noexcept;

struct Node {
  NodeKind kind = NodeKind::Map;
  u64 salt = 0;                  // makes each node's function its own
  std::vector<std::size_t> ins;  // stream indexes read, in order
  std::vector<std::size_t> outs; // stream indexes written, in order
  std::size_t count = 0;         // Source: values written
  std::size_t burst = 1;         // Loop: values sent around the ring per input value
  std::size_t ring = 1;          // Loop: stages on the way back (a ring of ring + 1 processes)
  std::size_t loop_capacity = 1; // Loop: capacity of each of its ring's channels
  std::size_t chunk = 1;         // Spawner: values per spawned helper
  bool eager = false;            // Spawner: writes a whole chunk before reading any result back
  std::size_t helper_capacity = 1; // Spawner: capacity of each helper's two channels
  std::size_t limit = 0;         // Sink: 0 reads everything, else reads this many and stops early
};

struct NetSpec {
  u64 seed = 0;
  std::vector<Node> nodes;
  std::vector<std::size_t> capacities;  // per stream
  // The live network declares its nodes last to first (sinks first), for half the seeds: a policy must give
  // the same output whatever the order its processes are created and started in (handoff's futile starts
  // turn its start order). Drawn from the seed apart from the generator's stream, so the nodes of a seed are
  // the same as before this existed.
  bool declared_backwards = false;
  std::size_t sinks() const;            // sinks are numbered in node order
  std::size_t source_values() const;    // values all sources write together: the network's size
};

// The network of `seed`: a function of the seed alone (its own RNG, no global state), so `--seed S`
// rebuilds it exactly.
NetSpec generate(u64 seed);

// A readable listing, one node per line, enough to rebuild the network by hand.
std::string describe(const NetSpec& net);

// The functions of the nodes, shared by the oracle and the live network (Kahn's determinism says the
// network computes exactly these, whatever the schedule).
u64 mix(u64 x) noexcept;  // splitmix64's finaliser
inline u64 source_value(u64 salt, u64 i) noexcept { return mix(i * 0x9E3779B97F4A7C15ull + salt); }
inline u64 map_value(u64 salt, u64 x) noexcept { return mix(x ^ salt) >> 1; }
inline bool filter_keeps(u64 salt, u64 x) noexcept { return mix(x + salt) % 3 != 0; }
inline u64 loop_send(u64 salt, u64 x, u64 j) noexcept { return mix(x + j * 31 + salt); }
inline u64 ring_stage(u64 salt, u64 stage, u64 v) noexcept { return mix(v ^ (salt + stage)) >> 3; }
inline u64 loop_fold(u64 acc, u64 back) noexcept { return acc * 1000003 + back; }
inline u64 helper_value(u64 salt, u64 x) noexcept { return mix(x * 7 + salt) >> 2; }

}  // namespace kpn::soak
