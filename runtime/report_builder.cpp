#include "runtime/report_builder.hpp"

#include "runtime/run_shared.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/worker.hpp"

namespace kpn {

RunReport build_report(RunShared& run, std::span<Worker* const> workers, double wall_s, std::uint64_t ticks,
                       std::uint64_t deadlocks_resolved) {
  const double ticks_per_s = wall_s > 0 && ticks > 0 ? static_cast<double>(ticks) / wall_s : 1e9;
  RunReport r;
  r.scheduler = std::string(run.scheduler.name());
  r.cpus = static_cast<unsigned>(workers.size());
  r.wall_s = wall_s;
  for (const Worker* w : workers) {
    const WorkerCounters& c = w->counters();
    WorkerReport wr;
    wr.index = static_cast<unsigned>(w->index());
    wr.pu = w->pu();
    wr.context_switches = c.context_switches.load();
    wr.steal_attempts = c.steal_attempts.load();
    wr.steals = c.steals.load();
    wr.busy_s = static_cast<double>(c.busy_ticks.load()) / ticks_per_s;
    wr.idle_s = static_cast<double>(c.idle_ticks.load()) / ticks_per_s;
    r.workers.push_back(wr);
  }
  r.process_details = run.table.finished_reports(ticks_per_s);
  for (const ProcessReport& p : r.process_details) r.processes_cancelled += p.cancelled ? 1 : 0;
  for (const auto& c : run.channels.list()) {
    ChannelSnapshot s = c->snapshot();
    r.channels.push_back(ChannelReport{std::move(s.name), s.capacity, s.messages, s.cross_worker_messages});
  }
  r.processes = run.table.inserted();
  r.deadlocks_resolved = deadlocks_resolved;
  r.blocking_calls = run.blocking.calls();
  r.blocking_threads = run.blocking.threads_started();
  r.scheduler_stats = run.scheduler.stats();
  r.compute_totals();
  return r;
}

}  // namespace kpn
