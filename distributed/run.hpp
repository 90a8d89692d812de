#pragma once
// One network over the ranks of an MPI job, in one call (docs/distributed.md). Every rank calls run()
// with the same network; rank 0 checks that every rank holds the same one, places the processes
// (placement.hpp, optionally from a pilot run: pilot.hpp), and broadcasts the placement; each rank builds
// its part (rank_network.hpp) and runs it with its own runtime while its communication thread
// (comm.hpp) carries the channels between ranks; the ranks finish together and rank 0 gathers the report.
// kpn-run --distributed is this call with the runner's options; a C++ program calls it with a topology
// it built (networks/topology_builder.hpp):
//
//   kpn::distributed::Session session(argc, argv);          // MPI_Init (needs mpirun); MPI_Finalize at its end
//   kpn::distributed::RunOptions options;
//   options.runtime.cpus = 1;
//   const auto outcome = kpn::distributed::run(session, kpn::distributed::topology_source(builder.topology()), options);
//   return outcome.exit_code;                                 // the same on every rank
//
// Every step that may fail on some ranks only is followed by an agreement, so that no rank waits in a
// collective for one that gave up: run() never throws, and returns the largest of the ranks' statuses on
// every rank (the runner's codes below), the failing rank having printed why.

#include <functional>
#include <memory>
#include <string>

#include "distributed/network_source.hpp"
#include "distributed/session.hpp"
#include "networks/kinds.hpp"
#include "networks/resolved.hpp"
#include "runtime/report.hpp"
#include "runtime/runtime.hpp"

namespace kpn::distributed {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;  // a process threw, a deadlock, a rank lost, results not written
inline constexpr int kExitBadInput = 2;   // the network or the options are wrong (on every rank)

// What one rank's call returns.
struct Outcome {
  int exit_code = kExitOk;      // the same on every rank: the largest of theirs (128 + N: stopped by signal N)
  std::string status;           // this rank's run: "ok", "failed", "deadlock", "interrupted"; "" if it never ran
  std::string error;            // why, when not "ok"
  std::shared_ptr<const RunReport> report;  // this rank's part of the run (null if it never ran)
  std::shared_ptr<const ResolvedNetwork> network;  // the whole network as this rank resolved it (null if it could not)
  // Rank 0, once the run has been: the whole job's figures as one JSON object (the placement, the
  // totals, every rank's numbers and report; kpn-run puts it under "distributed" in --stats-json).
  std::string distributed_json;
};

struct RunOptions {
  // Each rank's runtime: workers, policy, pinning, Parks' limit. A trace is not supported
  // (std::invalid_argument).
  RuntimeOptions runtime;
  double peer_timeout_s = 10.0;  // a rank silent this long is lost (comm.hpp: liveness)
  // Place the processes by a pilot run of this many milliseconds on rank 0 (pilot.hpp), 0: by the
  // network's weight hints if it has any, else equal weights (placement.hpp). At most kMaxPilotMs.
  unsigned pilot_ms = 0;
  bool quiet = false;            // rank 0 prints no placement and no summary on stderr
  std::string program = "kpn";   // begins every message: "kpn: rank 1: ..."
  // Where the network's results go (ResultSink: whole lines); nullptr: this rank's stdout, a failed write
  // making the exit status 1. Must outlive the call.
  ResultSink* results = nullptr;
  // Sees each runtime this rank makes (the pilot's, the run's) before it runs and nullptr after it (the
  // run's: when run() returns, after the ranks have finished together): a program that stops on SIGINT or
  // SIGTERM points its handler at it (Runtime::interrupt is async-signal-safe).
  std::function<void(Runtime*)> on_runtime;
  // The signal that interrupted the run, 0 for none: the status says which, and the exit status is 128 + it.
  std::function<int()> stop_signal;
  // Rank 0, after the run, before the job ends (with a lost rank the job ends by MPI_Abort right after):
  // writes the report somewhere, and returns the exit status to use (its argument's, or 1 if writing failed).
  std::function<int(const Outcome&)> on_report;
};

// Collective: every rank of `session` calls it with the same network and options.
Outcome run(Session& session, const NetworkSource& source, const RunOptions& options);

}  // namespace kpn::distributed
