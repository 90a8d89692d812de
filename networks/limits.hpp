#pragma once
// Bounds on what a topology may ask for. Past these a typo would exhaust memory (ten million replicas of a
// process, a capacity of 2^40) long before it did anything useful. A million processes fit: a pipeline of a
// million stages runs through kpn-run in about 5 s and 2 GiB on one worker, 11 s and 4.4 GiB on two, where
// half of its processes wait with a stack page each (docs/topology.md, "Limits").

#include <cstddef>
#include <cstdint>

namespace kpn::limits {

inline constexpr std::int64_t kMaxReplicas = 1'000'000;
inline constexpr std::int64_t kMaxRank = 65'535;  // `rank:` of a --distributed run
inline constexpr double kMaxWeight = 1e9;           // `weight:`, a relative CPU work (placement hint)
inline constexpr std::size_t kMaxProcesses = 2'000'000;  // after expanding replicas
inline constexpr std::size_t kMaxChannels = 4'000'000;   // after expanding connections
inline constexpr std::int64_t kMaxCapacity = std::int64_t{1} << 24;
// Names of parameters, processes and ports, and the text of a port reference. Names appear in every
// message, report and DOT label; no real one comes near this.
inline constexpr std::size_t kMaxNameLength = 256;

}  // namespace kpn::limits
