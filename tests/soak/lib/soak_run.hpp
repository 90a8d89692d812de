#pragma once
// Runs one soak network on the real runtime, through the public API only (<kpn.hpp>), under one policy
// and worker count, with a watchdog: a run that has not ended after `timeout` is interrupted and
// reported as a hang; one that does not even stop when interrupted ends the program (exit 3) after
// printing what hung, since no later result could be trusted.

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "soak_net.hpp"

namespace kpn::soak {

struct RunOutcome {
  enum class Status { Ok, Hang, Failed };
  Status status = Status::Ok;
  std::string error;                      // why it failed, for Failed
  std::vector<std::vector<u64>> sinks;    // what each sink received, in node order
  std::uint64_t messages = 0;             // channel messages, from the run's report
  std::uint64_t processes = 0;            // processes that existed, spawned ones included
  std::uint64_t deadlocks_resolved = 0;   // channels grown by Parks' rule
  std::uint64_t broken_writes = 0;        // writes refused with BrokenChannel (a reader stopped early)
  std::vector<std::pair<std::string, double>> scheduler_stats;  // the policy's own figures, from the report
  double seconds = 0;                     // wall time of the run
};

RunOutcome run_network(const NetSpec& net, const std::string& scheduler, unsigned cpus,
                       std::chrono::milliseconds timeout);

}  // namespace kpn::soak
