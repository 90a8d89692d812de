#pragma once
// How a Runtime places its workers on the machine's processing units (RuntimeOptions::pin, kpn-run --pin).

#include <optional>
#include <string_view>

namespace kpn {

enum class PinMode {
  // One worker per physical core first, hyperthread siblings after every core has one; NUMA nodes (or
  // packages, on a machine with one NUMA node) take turns, so that two workers land on two nodes.
  cores,
  // hwloc's logical PU order: siblings of a core are consecutive (on an SMT machine, two workers share a core).
  pus,
  // No pinning: the OS places the worker threads, and policies see no topology.
  none,
};

inline constexpr std::string_view to_string(PinMode m) noexcept {
  switch (m) {
    case PinMode::cores: return "cores";
    case PinMode::pus: return "pus";
    case PinMode::none: return "none";
  }
  return "?";
}

// The mode named `s` ("cores", "pus", "none"), or nothing.
inline std::optional<PinMode> parse_pin_mode(std::string_view s) noexcept {
  for (PinMode m : {PinMode::cores, PinMode::pus, PinMode::none}) {
    if (s == to_string(m)) return m;
  }
  return std::nullopt;
}

}  // namespace kpn
