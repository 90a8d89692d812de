#pragma once
// What a run measured. Built once, after every worker has stopped.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/export.hpp"

namespace kpn {

struct WorkerReport {
  unsigned index = 0;
  int pu = -1;                         // the processing unit it was pinned to, -1 if not pinned
  std::uint64_t context_switches = 0;  // switches into a process
  std::uint64_t steal_attempts = 0;    // every attempt, failed or not
  std::uint64_t steals = 0;            // attempts that took a process
  double busy_s = 0;                   // time spent running processes
  double idle_s = 0;                   // time with nothing to run (stealing, yielding)
};

struct ProcessReport {
  std::uint64_t id = 0;
  std::string name;
  // Time on a worker: the worker's wall time while it ran this process, from each switch in to the switch
  // out (the policy's work between runs is the worker's). Exact for the first runs and for runs of 2 us or
  // more; past those, short runs are timed one in 16 and the total estimated from them (cpu_sampler.hpp).
  double cpu_s = 0;
  std::uint64_t switches = 0;          // times it was switched in
  int last_worker = -1;
  int home_worker = -1;                // where the policy wanted it last (gp), -1 for none
  bool cancelled = false;              // it ended by being cancelled (kpn::cancel, Runtime::cancel)
};

struct ChannelReport {
  std::string name;
  std::size_t capacity = 0;
  std::uint64_t messages = 0;
  std::uint64_t cross_worker_messages = 0;  // read on another worker than the one that wrote them
};

// The machine the run was placed on (hwloc) and where its workers went.
struct KPN_EXPORT TopologyReport {
  std::string pin = "none";          // the pin mode: cores, pus or none
  unsigned packages = 0;
  unsigned numa_nodes = 0;
  unsigned cores = 0;
  unsigned pus = 0;
  std::vector<int> worker_pus;       // per worker: the OS index of its processing unit, -1 if not pinned
};

struct KPN_EXPORT RunReport {
  std::string scheduler;
  unsigned cpus = 0;
  double wall_s = 0;
  std::uint64_t processes = 0;         // processes that existed during the run (initial and spawned)
  std::uint64_t messages = 0;          // messages written to all channels
  std::uint64_t context_switches = 0;
  std::uint64_t steal_attempts = 0;
  std::uint64_t steals = 0;
  double steal_attempts_per_s = 0;
  std::uint64_t deadlocks_resolved = 0;  // artificial deadlocks resolved by growing a channel
  std::uint64_t cross_worker_messages = 0;  // messages read on another worker than the one that wrote them
  double cross_worker_share = 0;           // cross_worker_messages / messages (0 without messages)
  std::uint64_t blocking_calls = 0;        // kpn::blocking calls run on the pool
  unsigned blocking_threads = 0;           // pool threads started for them (0 if none was made)
  // Process stacks this run had to map; the others came from the Runtime's pool, kept from earlier runs
  // (a process takes its stack when it first runs, so this is at most the processes that ran at once,
  // rounded up to the pool's slabs).
  std::uint64_t stacks_mapped = 0;
  std::uint64_t processes_cancelled = 0;   // processes that ended by being cancelled (cancel.hpp)
  std::vector<std::pair<std::string, double>> scheduler_stats;  // the policy's own figures (Scheduler::stats)
  TopologyReport topology;
  std::vector<WorkerReport> workers;
  std::vector<ProcessReport> process_details;
  std::vector<ChannelReport> channels;
  // The execution trace (RuntimeOptions::trace), when one was asked for.
  std::string trace_file;            // "" when the run was not traced
  std::uint64_t trace_events = 0;    // JSON events written
  std::uint64_t trace_dropped = 0;   // recorded events past the trace limit, left out
  std::string trace_error;           // why the file could not be written ("" if it was)

  // Sums the per-worker and per-channel figures into the totals above.
  void compute_totals();
  // One JSON object with the totals and the workers (and, with details, processes and channels).
  // `prefix` fields come first: key and an already-encoded JSON value each.
  std::string to_json(bool details = false,
                      const std::vector<std::pair<std::string, std::string>>& prefix = {}) const;
  // A few lines for a person: wall time, messages, switches, steal rate, per-worker busy share.
  std::string summary() const;
};

}  // namespace kpn
