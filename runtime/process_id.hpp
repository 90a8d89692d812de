#pragma once
// The identity of a process: unique within a run, never reused, 0 for "no process". Names may repeat
// (spawned processes often share one); everything that must tell processes apart uses the id.

#include <cstdint>

namespace kpn {

using ProcessId = std::uint64_t;

}  // namespace kpn
