#pragma once
// Bounds on what a topology may ask for. Past these a typo would exhaust memory (a million replicas of a
// process, a capacity of 2^40) long before it did anything useful; each is far above what a real network
// on one machine needs.

#include <cstddef>
#include <cstdint>

namespace kpn::limits {

inline constexpr std::int64_t kMaxReplicas = 100'000;
inline constexpr std::int64_t kMaxRank = 65'535;  // `rank:` of a --distributed run
inline constexpr double kMaxWeight = 1e9;           // `weight:`, a relative CPU work (placement hint)
inline constexpr std::size_t kMaxProcesses = 250'000;   // after expanding replicas
inline constexpr std::size_t kMaxChannels = 1'000'000;  // after expanding connections
inline constexpr std::int64_t kMaxCapacity = std::int64_t{1} << 24;
// Names of parameters, processes and ports, and the text of a port reference. Names appear in every
// message, report and DOT label; no real one comes near this.
inline constexpr std::size_t kMaxNameLength = 256;

}  // namespace kpn::limits
