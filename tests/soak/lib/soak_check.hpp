#pragma once
// One soak network, checked: generated from its seed, computed by the oracle, then run under every
// requested policy and worker count; every run's sinks must equal the oracle's, value for value.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "soak_net.hpp"

namespace kpn::soak {

struct Matrix {
  std::vector<std::string> policies;  // default: every registered policy (kpn::scheduler_list())
  std::vector<unsigned> workers{1, 2, 4};
  // A run still going after this is a hang. Generous: a correct run of a long network under a policy that
  // spins on a shared, loaded CPU (gp with more workers than CPUs) has taken 20 s.
  std::chrono::milliseconds timeout{120'000};
};

// Every registered policy, in the registry's order; new policies join the soak without a change here.
std::vector<std::string> registered_policies();

struct NetworkResult {
  u64 seed = 0;
  std::size_t runs = 0;
  std::uint64_t messages = 0;           // channel messages over all runs
  std::uint64_t sink_values = 0;        // values the sinks received over all runs
  std::uint64_t deadlocks_resolved = 0; // Parks' rule growths over all runs
  std::uint64_t broken_writes = 0;      // BrokenChannel caught by the nodes' outputs, over all runs
  std::uint64_t spawned = 0;            // processes beyond the initial ones, over all runs
  std::uint64_t lost = 0;               // expected values missing from a sink, over all runs
  std::uint64_t duplicated = 0;         // values a sink received beyond what it expected
  std::size_t hangs = 0;
  std::size_t failed_runs = 0;          // runs that hung, threw, or gave wrong output
  std::string report;                   // for each failed run: what went wrong; then the network
  double slowest_seconds = 0;           // the slowest run that ended, and where it ran
  std::string slowest;                  // "seed S under POLICY on N workers"
  // Each policy's own statistics (Scheduler::stats) summed over its runs that ended: which of its mechanisms
  // the networks exercised (handoff's put-off and turned starts, gp's migrations, ...).
  std::map<std::string, std::map<std::string, double>> policy_stats;

  // Adds `other`'s figures to these (the slowest run is kept, not added).
  void add(const NetworkResult& other);
};

NetworkResult check_network(u64 seed, const Matrix& matrix);

}  // namespace kpn::soak
