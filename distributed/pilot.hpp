#pragma once
// A pilot run for the placement (--pilot-ms N): rank 0 runs the whole network by itself, with the
// ordinary runtime, for at most N milliseconds, and the placement takes each process's CPU time and each
// channel's message count from that run's report (profile.hpp) as METIS's vertex and edge weights.
//
// The pilot is a real run of the network, cut short: its results (what sinks print) are discarded, but
// what its processes do outside the network happens (a `lines.write` file is written, then written again
// by the run proper; a `lines.read` of stdin would consume it). The run proper starts afresh.

#include <functional>

#include "distributed/profile.hpp"
#include "networks/resolved.hpp"
#include "runtime/runtime.hpp"

namespace kpn::distributed {

// The longest pilot: a placement hint should not cost more than a short run.
inline constexpr unsigned kMaxPilotMs = 60'000;

// Runs `net` for at most `ms` milliseconds with `options` and returns its profile (Profile::ended says how
// it stopped: a failure or a deadlock ends the pilot early, with what was measured until then; the run
// proper meets it again). `on_runtime` sees the pilot's runtime before its run and nullptr after it (a
// program that stops on signals points its handler at it). Throws what building the network throws.
Profile run_pilot(const ResolvedNetwork& net, unsigned ms, const RuntimeOptions& options,
                  const std::function<void(Runtime*)>& on_runtime = {});

}  // namespace kpn::distributed
