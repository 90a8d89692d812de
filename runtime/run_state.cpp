#include "runtime/run_state.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <unordered_map>

#include <sched.h>

#include <fmt/format.h>

#include "runtime/current.hpp"
#include "runtime/cycle_clock.hpp"
#include "runtime/deadlock.hpp"
#include "runtime/errors.hpp"
#include "runtime/fault_handler.hpp"
#include "runtime/log.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/steady_time.hpp"
#include "runtime/tsan.hpp"
#include "runtime/worker.hpp"

namespace kpn {
RunState::RunState(Scheduler& scheduler, std::vector<int> pus, const CpuTopology* topology, std::size_t max_capacity,
                   unsigned scan_ms)
    : scheduler_(scheduler),
      topology_(topology),
      pus_(std::move(pus)),
      max_capacity_(max_capacity),
      stacks_(static_cast<unsigned>(pus_.size())),
      scan_period_ns_(std::int64_t{scan_ms} * 1'000'000) {
  workers_.reserve(pus_.size());
  for (std::size_t i = 0; i < pus_.size(); ++i) {
    workers_.push_back(std::make_unique<Worker>(*this, static_cast<int>(i), pus_[i]));
  }
}

RunState::~RunState() = default;

RunReport RunState::execute(NetworkSpec& network) {
  std::vector<ProcessSpec> specs = network.take_processes();
  for (const auto& c : network.channels()) register_channel(c);

  std::vector<Worker*> workers;
  for (auto& w : workers_) workers.push_back(w.get());
  scheduler_.start(workers);
  scheduler_.on_network(initial_graph(specs));

  const auto wall_start = std::chrono::steady_clock::now();
  next_scan_ns_.store(steady_ns() + scan_period_ns_, std::memory_order_relaxed);
  const std::uint64_t tick_start = cycle_clock::now();

  try {
    for (auto& spec : specs) spawn(std::move(spec.name), std::move(spec.body), spec.options, nullptr);
  } catch (...) {
    // Out of memory or stacks while creating the network: unwind what exists, then report.
    request_stop();
    unwind_remaining();
    throw;
  }
  specs.clear();

  if (live_.load() == 0) {
    request_stop();
  } else {
    std::vector<std::thread> threads;
    threads.reserve(workers_.size());
    for (auto& w : workers_) threads.emplace_back([w = w.get()] { w->thread_main(); });
    for (auto& t : threads) t.join();
  }

  const std::uint64_t ticks = cycle_clock::now() - tick_start;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  unwind_remaining();
  if (interrupted_.load(std::memory_order_relaxed) && !failure_) failure_ = std::make_unique<Interrupted>();

  RunReport report = build_report(wall_s, ticks);
  if (failure_) {
    failure_->set_report(std::make_shared<const RunReport>(report));
    // Rethrow with the dynamic type preserved.
    if (auto* f = dynamic_cast<ProcessFailed*>(failure_.get())) throw ProcessFailed(*f);
    if (auto* d = dynamic_cast<DeadlockError*>(failure_.get())) throw DeadlockError(*d);
    if (auto* i = dynamic_cast<Interrupted*>(failure_.get())) throw Interrupted(*i);
    throw RunError(*failure_);
  }
  return report;
}

ProcessId RunState::spawn(std::string name, UniqueFunction<void()> body, ProcessOptions options, Worker* spawner) {
  validate(name, options);
  const ProcessId id = next_id_.fetch_add(1, std::memory_order_relaxed);
  auto* p = new Process(*this, id, std::move(name), std::move(body), options);
  {
    std::lock_guard g(registry_mutex_);
    p->reg_next_ = registry_head_;
    if (registry_head_ != nullptr) registry_head_->reg_prev_ = p;
    registry_head_ = p;
  }
  live_.fetch_add(1, std::memory_order_relaxed);
  active_.fetch_add(1, std::memory_order_relaxed);
  if (!stopping()) scheduler_.on_spawn(*p, spawner);  // when stopping, never scheduled: unwound with the rest
  return id;
}

void RunState::register_channel(std::shared_ptr<ChannelView> channel) {
  std::lock_guard g(channels_mutex_);
  channels_.push_back(std::move(channel));
}

ProcessGraph RunState::initial_graph(const std::vector<ProcessSpec>& specs) {
  ProcessGraph g;
  g.vertices.reserve(specs.size());
  for (const auto& spec : specs) {
    g.vertices.push_back({spec.name, 0, 0, spec.options.home_worker, spec.options.home_worker >= 0});
  }
  add_channel_edges(g);
  return g;
}

ProcessGraph RunState::live_graph() {
  ProcessGraph g;
  {
    std::lock_guard lock(registry_mutex_);
    for (Process* p = registry_head_; p != nullptr; p = p->reg_next_) {
      g.vertices.push_back({p->name(), p->id(), p->cpu_ticks.load(std::memory_order_relaxed),
                            p->home_worker.load(std::memory_order_relaxed), p->options().home_worker >= 0});
    }
  }
  // Newest first in the registry; creation order is steadier for partitioners.
  std::reverse(g.vertices.begin(), g.vertices.end());
  add_channel_edges(g);
  return g;
}

void RunState::add_channel_edges(ProcessGraph& g) {
  std::unordered_map<std::string_view, std::size_t> index;
  index.reserve(g.vertices.size());
  for (std::size_t i = 0; i < g.vertices.size(); ++i) index.emplace(g.vertices[i].name, i);
  std::vector<std::shared_ptr<ChannelView>> channels;
  {
    std::lock_guard lock(channels_mutex_);
    channels = channels_;
  }
  for (const auto& c : channels) {
    const ChannelSnapshot s = c->snapshot();
    const auto from = index.find(s.writer);
    const auto to = index.find(s.reader);
    if (from == index.end() || to == index.end() || from->second == to->second) continue;
    g.edges.push_back({from->second, to->second, s.messages});
  }
}

void RunState::process_parked() {
  if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) on_quiescent();
}

void RunState::process_exited(Process& p) {
  {
    std::lock_guard g(registry_mutex_);
    if (p.reg_prev_ != nullptr) p.reg_prev_->reg_next_ = p.reg_next_;
    else registry_head_ = p.reg_next_;
    if (p.reg_next_ != nullptr) p.reg_next_->reg_prev_ = p.reg_prev_;
    finished_.push_back(Finished{p.id(), p.name(), p.cpu_ticks.load(std::memory_order_relaxed), p.switches,
                                 p.last_worker, p.home_worker.load(std::memory_order_relaxed)});
  }
#if defined(KPN_TSAN)
  KPN_TSAN_DESTROY_FIBER(p.tsan_fiber_);
#endif
  delete &p;
  live_.fetch_sub(1, std::memory_order_acq_rel);
  if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) on_quiescent();
}

void RunState::process_failed(Process& p, std::exception_ptr error) {
  std::string message = "unknown exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
  }
  log().debug("process '{}' failed: {}", p.name(), message);
  fail(std::make_unique<ProcessFailed>(p.name(), std::move(message), error));
}

void RunState::fail(std::unique_ptr<RunError> error) {
  {
    std::lock_guard g(failure_mutex_);
    if (!failure_) failure_ = std::move(error);
  }
  request_stop();
}

std::vector<BlockedProcess> RunState::collect_blocked() {
  std::vector<BlockedProcess> blocked;
  {
    std::lock_guard g(registry_mutex_);
    for (Process* p = registry_head_; p != nullptr; p = p->reg_next_) {
      if (p->state() == ProcessState::Blocked) blocked.push_back({p->name(), p->wait_channel, p->wait_direction, {}, {}});
    }
  }
  // Newest first in the registry; report in creation order.
  std::reverse(blocked.begin(), blocked.end());
  snapshot_channels(blocked);
  return blocked;
}

bool RunState::resolve_artificial(std::vector<BlockedProcess>& blocked, const std::vector<std::size_t>* only,
                                  std::string& refused) {
  const Growth growth = choose_growth(blocked, max_capacity_, only);
  if (growth.channel == nullptr) {
    refused = growth.refused;
    return false;
  }
  // The first resolution is worth a warning; a network that needs it usually needs it again and again,
  // so the rest go to debug level and the count to the report.
  log().log(deadlocks_resolved_ == 0 ? spdlog::level::warn : spdlog::level::debug,
            "{}artificial deadlock resolved: channel '{}' grown from {} to {} messages{}", only != nullptr ? "local " : "",
            growth.channel->name(), growth.from, growth.to,
            deadlocks_resolved_ == 0 ? " (further resolutions are logged at debug level)" : "");
  ++deadlocks_resolved_;
  growth.channel->grow(growth.to);  // wakes its writer: the network goes on
  return true;
}

// Called by the worker whose decrement made `active` zero: no process runs or is queued.
void RunState::on_quiescent() {
  if (stopping()) return;
  if (live_.load(std::memory_order_acquire) == 0) {
    request_stop();
    return;
  }
  std::vector<BlockedProcess> blocked = collect_blocked();
  std::string refused;
  if (resolve_artificial(blocked, nullptr, refused)) return;
  fail(std::make_unique<DeadlockError>(describe_deadlock(blocked, refused)));
}

void RunState::pause_here() noexcept {
  paused_.fetch_add(1, std::memory_order_acq_rel);  // publishes what this worker's processes wrote
  while (pause_requested_.load(std::memory_order_acquire) && !stopping()) sched_yield();
  paused_.fetch_sub(1, std::memory_order_acq_rel);
}

void RunState::maybe_scan() {
  if (scan_period_ns_ == 0) return;
  const std::int64_t now = steady_ns();
  if (now < next_scan_ns_.load(std::memory_order_relaxed)) return;
  bool expected = false;
  if (!pause_requested_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return;
  const int others = static_cast<int>(workers_.size()) - 1;
  const std::int64_t give_up = now + std::int64_t{config::kPauseTimeoutMs} * 1'000'000;
  while (paused_.load(std::memory_order_acquire) < others) {
    if (stopping() || steady_ns() > give_up) {
      // Some worker runs a long computation: try again later, backing off.
      scan_backoff_ns_ = std::min<std::int64_t>(std::max(scan_backoff_ns_ * 2, scan_period_ns_),
                                                std::int64_t{config::kMaxScanBackoffMs} * 1'000'000);
      next_scan_ns_.store(steady_ns() + scan_backoff_ns_, std::memory_order_relaxed);
      pause_requested_.store(false, std::memory_order_release);
      return;
    }
    sched_yield();
  }
  const std::int64_t start = steady_ns();
  scan_for_local_deadlock();
  const std::int64_t end = steady_ns();
  scan_backoff_ns_ = 0;
  next_scan_ns_.store(end + std::max(scan_period_ns_, 50 * (end - start)), std::memory_order_relaxed);
  pause_requested_.store(false, std::memory_order_release);
}

// Every other worker is paused: no process runs, so blocked processes and their channels hold still.
void RunState::scan_for_local_deadlock() {
  if (stopping()) return;
  std::vector<BlockedProcess> blocked = collect_blocked();
  const std::vector<std::size_t> cycle = find_wait_cycle(blocked);
  if (cycle.empty()) return;
  std::string refused;
  if (resolve_artificial(blocked, &cycle, refused)) return;
  std::vector<BlockedProcess> members;
  for (std::size_t i : cycle) members.push_back(blocked[i]);
  fail(std::make_unique<DeadlockError>(describe_deadlock(members, refused, /*local=*/true)));
}

void RunState::unwind_remaining() {
  const AltSignalStack signal_stack;
  Worker teardown(*this, -1, -1);
  detail::set_current_worker(&teardown);
  for (;;) {
    Process* p;
    {
      std::lock_guard g(registry_mutex_);
      p = registry_head_;
    }
    if (p == nullptr) break;
    p->cancel_ = true;
    p->state_.store(ProcessState::Ready, std::memory_order_relaxed);
    teardown.run_process(*p);
  }
  detail::set_current_worker(nullptr);
}

RunReport RunState::build_report(double wall_s, std::uint64_t ticks) {
  const double ticks_per_s = wall_s > 0 && ticks > 0 ? static_cast<double>(ticks) / wall_s : 1e9;
  RunReport r;
  r.scheduler = std::string(scheduler_.name());
  r.cpus = static_cast<unsigned>(workers_.size());
  r.wall_s = wall_s;
  for (const auto& w : workers_) {
    WorkerCounters& c = w->counters();
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
  {
    std::lock_guard g(registry_mutex_);
    r.process_details.reserve(finished_.size());
    for (const auto& f : finished_) {
      r.process_details.push_back(
          ProcessReport{f.id, f.name, static_cast<double>(f.cpu_ticks) / ticks_per_s, f.switches, f.last_worker,
                        f.home_worker});
    }
  }
  std::sort(r.process_details.begin(), r.process_details.end(),
            [](const ProcessReport& a, const ProcessReport& b) { return a.id < b.id; });
  {
    std::lock_guard g(channels_mutex_);
    for (const auto& c : channels_) {
      ChannelSnapshot s = c->snapshot();
      r.channels.push_back(ChannelReport{std::move(s.name), s.capacity, s.messages, s.cross_worker_messages});
    }
  }
  r.processes = next_id_.load() - 1;
  r.deadlocks_resolved = deadlocks_resolved_;
  r.scheduler_stats = scheduler_.stats();
  r.compute_totals();
  return r;
}

}  // namespace kpn
