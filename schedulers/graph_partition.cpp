#include "schedulers/graph_partition.hpp"

#include <algorithm>
#include <unordered_map>

#include "runtime/idle_workers.hpp"
#include "runtime/log.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/steady_time.hpp"
#include "runtime/worker.hpp"
#include "schedulers/partition.hpp"

namespace kpn {
namespace {

double ms_between(std::int64_t from_ns, std::int64_t to_ns) { return static_cast<double>(to_ns - from_ns) / 1e6; }

partition::Graph to_partition_graph(const ProcessGraph& g, int nparts, bool measured) {
  partition::Graph pg;
  pg.vertex_weight.reserve(g.vertices.size());
  pg.fixed.reserve(g.vertices.size());
  for (const auto& v : g.vertices) {
    pg.vertex_weight.push_back(measured ? v.cpu_ticks : 1);
    pg.fixed.push_back(v.pinned ? v.home % nparts : -1);
  }
  for (const auto& e : g.edges) pg.edges.push_back({e.from, e.to, measured ? e.messages : 1});
  return pg;
}

}  // namespace

void GraphPartitionScheduler::start(SchedulerContext& context) {
  context_ = &context;
  const auto workers = context.workers();
  workers_.assign(workers.begin(), workers.end());
  slots_ = std::make_unique<Slot[]>(workers_.size());
  idle_ = std::make_unique<IdleClock[]>(workers_.size());
  initial_homes_.clear();
  next_initial_ = 0;
  stats_ = Stats{};
  interval_ms_ = tuning_.min_interval_ms;
  next_repartition_ns_.store(steady_ns() + static_cast<std::int64_t>(interval_ms_ * 1e6), std::memory_order_relaxed);
  sleepers_ = &context.idle_workers();
  // Every notify_worker follows a push that made the watched size non-zero (wake_if_filled), and the size
  // stays non-zero until the process is taken: a spinning sleeper sees its work itself.
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    sleepers_->watch(static_cast<unsigned>(i), &slots_[i].queue.size_word());
  }
  sleepers_->nap_while_others_run(tuning_.repartition && workers_.size() > 1);
}

void GraphPartitionScheduler::on_network(const ProcessGraph& network) {
  const std::int64_t begin = steady_ns();
  const int n = static_cast<int>(workers_.size());
  const partition::Result r = partition::partition_graph(to_partition_graph(network, n, false), n, tuning_.tolerance);
  initial_homes_ = r.part;
  stats_.initial_ms = ms_between(begin, steady_ns());
  if (r.metis_rejected) ++stats_.metis_rejected;
  if (r.metis_skipped) ++stats_.metis_skipped;
  log().debug("gp: initial partition of {} processes and {} channels over {} workers by {}: imbalance {:.3f}, cut {}",
              network.vertices.size(), network.edges.size(), n, partition::to_string(r.method), r.imbalance, r.cut);
}

int GraphPartitionScheduler::home_of(Process& p) const noexcept {
  return std::atomic_ref<int>(p.policy_data<Home>().plus_one).load(std::memory_order_relaxed) - 1;
}

void GraphPartitionScheduler::set_home(Process& p, int home) noexcept {
  std::atomic_ref<int>(p.policy_data<Home>().plus_one).store(home + 1, std::memory_order_relaxed);
}

void GraphPartitionScheduler::rehome_live_processes(const std::function<int(Process&)>& choose) {
  context_->for_each_live_process([&](Process& p) { set_home(p, choose(p)); });
}

std::size_t GraphPartitionScheduler::placed_home(Process& p) const noexcept {
  const int h = home_of(p);
  return h >= 0 && static_cast<std::size_t>(h) < workers_.size() ? static_cast<std::size_t>(h) : 0;
}

void GraphPartitionScheduler::on_spawn(Process& p, Worker* spawner) {
  const int n = static_cast<int>(workers_.size());
  const int pinned = p.options().home_worker;
  int home;
  if (pinned >= 0) {
    home = pinned % n;
  } else if (spawner != nullptr) {
    home = spawner->index();
  } else if (next_initial_ < initial_homes_.size()) {
    home = initial_homes_[next_initial_];
  } else {
    home = static_cast<int>(next_initial_ % workers_.size());
  }
  if (spawner == nullptr) ++next_initial_;
  set_home(p, home);
  const auto at = static_cast<std::size_t>(home);
  wake_if_filled(at, spawner != nullptr ? queue(at).push_front(&p) : queue(at).push_back(&p), spawner);
}

void GraphPartitionScheduler::wake_if_filled(std::size_t w, bool filled, const Worker* by) {
  if (filled && (by == nullptr || static_cast<std::size_t>(by->index()) != w)) {
    sleepers_->notify_worker(static_cast<unsigned>(w));
  }
}

void GraphPartitionScheduler::on_unblock(Process& p, Worker* waker) {
  const std::size_t at = placed_home(p);
  wake_if_filled(at, queue(at).push_back(&p), waker);
}

// A yielding process whose home was changed (a repartition) migrates here, to another worker's queue.
void GraphPartitionScheduler::on_yield(Process& p, Worker& w) {
  const std::size_t at = placed_home(p);
  wake_if_filled(at, queue(at).push_back(&p), &w);
}

Process* GraphPartitionScheduler::pick_next(Worker& w) {
  const auto i = static_cast<std::size_t>(w.index());
  Process* p = queue(i).pop_front();
  if (p != nullptr) {
    IdleClock& idle = idle_[i];
    if (idle.idle_since_ns != 0) {  // one clock read per idle spell, not per switch
      idle.idle_ns += steady_ns() - idle.idle_since_ns;
      idle.idle_since_ns = 0;
    }
  }
  return p;
}

// The front of the worker's own queue, for a direct switch (worker_thread.hpp; session 27: 21 to 40 % off a
// pipeline and a ring without work, against every switch through the loop). The worker is running a
// process, so its idle clock is stopped (idle_since_ns == 0) and there is nothing to account. The racy size
// check spares the lock when the queue looks empty: the loop's pick_next looks again under it.
Process* GraphPartitionScheduler::pick_local(Worker& w) {
  return queue(static_cast<std::size_t>(w.index())).try_pop_front();
}

bool GraphPartitionScheduler::others_have_work(const Worker& w) const noexcept {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    if (static_cast<int>(i) != w.index() && slots_[i].queue.size_hint() > 0) return true;
  }
  return false;
}

void GraphPartitionScheduler::on_idle(Worker& w) {
  if (tuning_.repartition && workers_.size() > 1) check_drift(w);
  // Nobody else can give this worker work but through its queue, and nobody takes from it (the header).
  const auto i = static_cast<unsigned>(w.index());
  Slot& s = slots_[i];
  sleepers_->sleep(i, [&s] { return s.queue.size_hint() > 0; });
}

void GraphPartitionScheduler::check_drift(Worker& w) {
  IdleClock& idle = idle_[static_cast<std::size_t>(w.index())];
  const std::int64_t now = steady_ns();
  if (idle.idle_since_ns == 0) idle.idle_since_ns = now;
  if (idle.window_start_ns == 0) idle.window_start_ns = now;
  const std::int64_t window = now - idle.window_start_ns;
  if (ms_between(0, window) >= tuning_.window_ms) {
    const std::int64_t idle_ns = idle.idle_ns + (now - idle.idle_since_ns);
    if (static_cast<double>(idle_ns) >= tuning_.idle_share * static_cast<double>(window) &&
        now >= next_repartition_ns_.load(std::memory_order_relaxed) && others_have_work(w)) {
      bool expected = false;
      if (repartitioning_.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
        repartition(now);
        repartitioning_.store(false, std::memory_order_release);
      }
    }
    idle.window_start_ns = idle.idle_since_ns = steady_ns();
    idle.idle_ns = 0;
  }
}

void GraphPartitionScheduler::repartition(std::int64_t begin) {
  const int n = static_cast<int>(workers_.size());
  const ProcessGraph g = context_->live_graph();
  std::size_t moved = 0;
  double hold_us = 0;
  if (g.vertices.size() >= 2) {
    const partition::Graph pg = to_partition_graph(g, n, true);
    const partition::Result r = partition::partition_graph(pg, n, tuning_.tolerance);
    if (r.metis_rejected) ++stats_.metis_rejected;
    if (r.metis_skipped) ++stats_.metis_skipped;
    std::vector<int> current(g.vertices.size());
    for (std::size_t v = 0; v < g.vertices.size(); ++v) {
      // A process not placed yet (created while the run stops) has no home: count it where home_of would.
      const int h = g.vertices[v].home;
      current[v] = h >= 0 && h < n ? h : 0;
    }
    const std::vector<int> label = partition::relabel(r.part, current, n);
    std::vector<int> proposed(g.vertices.size());
    for (std::size_t v = 0; v < g.vertices.size(); ++v) {
      proposed[v] = g.vertices[v].pinned ? current[v] : label[static_cast<std::size_t>(r.part[v])];
    }
    // Move only a placement outside the tolerance, and only for a clearly cheaper one (see the header).
    const double imbalance = partition::imbalance(pg, current, n);
    const double before = partition::placement_cost(pg, current, n);
    const double after = partition::placement_cost(pg, proposed, n);
    const double bound = partition::best_imbalance(pg, n) * (1.0 + tuning_.tolerance);
    if (imbalance > bound && after < before * (1.0 - tuning_.min_gain)) {
      std::unordered_map<std::uint64_t, int> moves;
      for (std::size_t v = 0; v < g.vertices.size(); ++v) {
        if (proposed[v] != current[v]) moves.emplace(g.vertices[v].id, proposed[v]);
      }
      const std::int64_t hold_begin = steady_ns();
      context_->for_each_live_process([&](Process& p) {
        if (auto it = moves.find(p.id()); it != moves.end()) {
          set_home(p, it->second);
          ++moved;
        }
      });
      hold_us = ms_between(hold_begin, steady_ns()) * 1e3;
    }
    log().debug("gp: repartition of {} processes by {}: imbalance {:.3f}, cost {:.3f} -> {:.3f}, {} moved",
                g.vertices.size(), partition::to_string(r.method), imbalance, before, after, moved);
  }
  const std::int64_t end = steady_ns();
  const double took = ms_between(begin, end);
  ++stats_.repartitions;
  stats_.migrations += moved;
  stats_.partition_ms_total += took;
  stats_.partition_ms_max = std::max(stats_.partition_ms_max, took);
  stats_.registry_hold_us_max = std::max(stats_.registry_hold_us_max, hold_us);
  interval_ms_ = moved > 0 ? tuning_.min_interval_ms : std::min(interval_ms_ * 2, tuning_.max_interval_ms);
  next_repartition_ns_.store(end + static_cast<std::int64_t>(interval_ms_ * 1e6), std::memory_order_relaxed);
}

std::vector<std::pair<std::string, double>> GraphPartitionScheduler::stats() const {
  std::vector<std::pair<std::string, double>> out{{"initial_partition_ms", stats_.initial_ms},
          {"repartitions", static_cast<double>(stats_.repartitions)},
          {"migrations", static_cast<double>(stats_.migrations)},
          {"partition_ms_total", stats_.partition_ms_total},
          {"partition_ms_max", stats_.partition_ms_max},
          {"registry_hold_us_max", stats_.registry_hold_us_max},
          {"metis_rejected", static_cast<double>(stats_.metis_rejected)},
          {"metis_skipped", static_cast<double>(stats_.metis_skipped)}};
  if (sleepers_ != nullptr) sleepers_->append_counts(out);
  return out;
}

}  // namespace kpn

namespace kpn {
namespace {

const SchedulerRegistration gp{
    "gp", "graph partitioning (METIS): each process runs on its home worker; repartitions when the load drifts",
    [] { return std::make_unique<GraphPartitionScheduler>(); }};

const SchedulerRegistration gp_static{
    "gp-static", "graph partitioning (METIS) of the initial network only; never repartitions",
    [] { return std::make_unique<GraphPartitionScheduler>(GraphPartitionScheduler::Tuning{.repartition = false}); }};

}  // namespace
}  // namespace kpn
