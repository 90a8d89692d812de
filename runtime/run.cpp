#include "runtime/run.hpp"

#include <algorithm>
#include <chrono>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>

#include "runtime/cancel_run.hpp"
#include "runtime/current.hpp"
#include "runtime/cycle_clock.hpp"
#include "runtime/fault_handler.hpp"
#include "runtime/process.hpp"
#include "runtime/report_builder.hpp"
#include "runtime/signal_mask.hpp"
#include "runtime/worker_thread.hpp"

namespace kpn {

Run::Run(Scheduler& scheduler, StackPool& stacks, std::vector<int> pus, const CpuTopology* topology,
         TopologyReport placement, std::size_t max_capacity, unsigned scan_ms, const TraceSettings* trace)
    : shared_(scheduler, stacks, static_cast<unsigned>(pus.size())),
      monitor_(shared_, max_capacity, scan_ms),
      topology_(topology),
      placement_(std::move(placement)),
      pus_(pus) {
  shared_.quiescence.set_listener(&monitor_);
  if (trace != nullptr && kTracingCompiledIn) {
    trace_ = std::make_unique<TraceRecorder>(*trace, static_cast<unsigned>(pus.size()));
    shared_.trace = trace_.get();
  }
  threads_.reserve(pus.size());
  for (std::size_t i = 0; i < pus.size(); ++i) {
    threads_.push_back(std::make_unique<WorkerThread>(shared_, static_cast<int>(i), pus[i]));
    workers_.push_back(&threads_.back()->worker());
    if (trace_) workers_.back()->attach_trace(&trace_->worker_buffer(static_cast<unsigned>(i)));
  }
}

Run::~Run() = default;

RunReport Run::execute(NetworkSpec& network) {
  std::vector<ProcessSpec> specs = network.take_processes();
  for (const auto& c : network.channels()) shared_.channels.add(c);

  Scheduler& scheduler = shared_.scheduler;
  scheduler.start(*this);
  scheduler.on_network(scheduler.wants_network() ? initial_graph(specs) : ProcessGraph{});
  scheduler.on_network_size(specs.size());

  const std::size_t stacks_before = shared_.stacks.stacks_mapped();
  const auto wall_start = std::chrono::steady_clock::now();
  const std::uint64_t tick_start = cycle_clock::now();
  if (trace_) trace_run_.start = trace_->now();
  try {
    for (auto& spec : specs) shared_.spawn(std::move(spec.name), std::move(spec.body), spec.options, nullptr);
  } catch (...) {
    // Out of memory or stacks while creating the network: unwind what exists, then report.
    shared_.stop.request_stop();
    shared_.external.close_and_wait();
    unwind_remaining();
    throw;
  }
  specs.clear();

  if (shared_.table.live() == 0) {
    shared_.stop.request_stop();
  } else {
    run_workers();
  }

  const std::uint64_t ticks = cycle_clock::now() - tick_start;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (trace_) trace_run_.end = trace_->now();

  // A stopping run may leave processes parked in blocking calls, whose pool threads still use their
  // stacks: stop the interruptible ones and wait for every call to return before unwinding
  // (blocking_call.hpp). A run that ends without stopping has no call in flight (a call keeps it active).
  shared_.blocking.wait_idle(shared_.stop.stopping());
  // Threads of the program's that ready processes (external_wakers.hpp) are out of the run from here on.
  shared_.external.close_and_wait();
  unwind_remaining();
  shared_.stacks.return_cached_stacks();  // every worker has left: their caches go to the next run
  RunReport report = build_report(shared_, workers_, wall_s, ticks, monitor_.resolved());
  report.stacks_mapped = shared_.stacks.stacks_mapped() - stacks_before;
  report.topology = placement_;
  std::unique_ptr<RunError> failure = shared_.stop.take_failure();
  if (trace_) finish_trace(report, failure.get());
  if (failure) {
    failure->set_report(std::make_shared<const RunReport>(report));
    // Rethrow with the dynamic type preserved.
    if (auto* f = dynamic_cast<ProcessFailed*>(failure.get())) throw ProcessFailed(*f);
    if (auto* d = dynamic_cast<DeadlockError*>(failure.get())) throw DeadlockError(*d);
    if (auto* i = dynamic_cast<Interrupted*>(failure.get())) throw Interrupted(*i);
    throw RunError(*failure);
  }
  return report;
}

void Run::finish_trace(RunReport& report, const RunError* failure) {
  if (failure != nullptr) {
    const char* kind = dynamic_cast<const DeadlockError*>(failure) != nullptr ? "deadlock"
                       : dynamic_cast<const Interrupted*>(failure) != nullptr ? "interrupted"
                                                                               : "failure";
    trace_->add_note(trace_run_.end, kind, failure->what());
  }
  trace_run_.scheduler = std::string(shared_.scheduler.name());
  trace_run_.pus = pus_;
  const TraceResult written = write_trace(*trace_, shared_.channels.list(), trace_run_);
  report.trace_file = written.path;
  report.trace_events = written.events;
  report.trace_dropped = written.dropped;
  report.trace_error = written.error;
}

void Run::run_workers() {
  std::vector<std::thread> threads;
  threads.reserve(threads_.size());
  {
    // The run's threads are started with the asynchronous signals blocked (signal_mask.hpp); this thread
    // takes them again for the join, so a SIGINT lands here or on another of the program's threads.
    const AsyncSignalsBlocked blocked;
    if (trace_) trace_->start_sampling(shared_.channels);
    monitor_.start_scanning();
    for (std::size_t i = 0; i < threads_.size(); ++i) {
      threads.emplace_back([t = threads_[i].get(), i, this] {
        t->thread_main(topology_);
        shared_.exits.left(static_cast<unsigned>(i));
      });
    }
  }
  // A worker whose process is blocked in a system call when the run stops is sent a signal until it leaves
  // (worker_exits.hpp).
  shared_.exits.wait_and_join(threads, shared_.stop);
  monitor_.stop_scanning();
  if (trace_) trace_->stop_sampling();
}

ProcessGraph Run::initial_graph(const std::vector<ProcessSpec>& specs) {
  ProcessGraph g;
  g.vertices.reserve(specs.size());
  for (const auto& spec : specs) {
    g.vertices.push_back({spec.name, 0, 0, spec.options.home_worker, spec.options.home_worker >= 0});
  }
  add_channel_edges(g);
  return g;
}

ProcessGraph Run::live_graph() {
  ProcessGraph g;
  Scheduler& scheduler = shared_.scheduler;
  shared_.table.for_each([&](Process& p) {
    g.vertices.push_back({p.name(), p.id(), p.cpu_ticks(), scheduler.home_of(p), p.options().home_worker >= 0});
  });
  // Creation order (ids grow with it) is steadier for partitioners than the table's.
  std::sort(g.vertices.begin(), g.vertices.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  add_channel_edges(g);
  return g;
}

void Run::for_each_live_process(const std::function<void(Process&)>& visit) { shared_.table.for_each(visit); }

void Run::add_channel_edges(ProcessGraph& g) {
  // By id where an endpoint has been used; by name (when unique) where only the declaration names it.
  std::unordered_map<ProcessId, std::size_t> by_id;
  std::unordered_map<std::string_view, std::size_t> by_name;
  by_id.reserve(g.vertices.size());
  by_name.reserve(g.vertices.size());
  for (std::size_t i = 0; i < g.vertices.size(); ++i) {
    if (g.vertices[i].id != 0) by_id.emplace(g.vertices[i].id, i);
    if (!by_name.emplace(g.vertices[i].name, i).second) by_name[g.vertices[i].name] = g.vertices.size();
  }
  auto find = [&](ProcessId id, const std::string& name) -> std::size_t {
    if (id != 0) {
      auto it = by_id.find(id);
      if (it != by_id.end()) return it->second;
    }
    auto it = by_name.find(name);
    return it == by_name.end() ? g.vertices.size() : it->second;
  };
  for (const auto& c : shared_.channels.list()) {
    const ChannelSnapshot s = c->snapshot();
    const std::size_t from = find(s.writer, s.writer_name);
    const std::size_t to = find(s.reader, s.reader_name);
    if (from >= g.vertices.size() || to >= g.vertices.size() || from == to) continue;
    g.edges.push_back({from, to, s.messages});
  }
}

std::size_t Run::cancel(int kind, std::string_view text, ProcessId id, const char* what) {
  // From a process of this run, the canceller is active, so the network is not quiescent meanwhile. From
  // any other thread, waking a process must not race with the global analysis, which relies on nothing
  // waking while nothing runs (deadlock_monitor.hpp).
  if (current_run() == &shared_ && current_process() != nullptr) return detail::cancel_in_run(shared_, kind, text, id, what);
  auto exclusive = monitor_.exclusive();
  return detail::cancel_in_run(shared_, kind, text, id, what);
}

void Run::unwind_remaining() {
  const AltSignalStack signal_stack;
  const StackPool::ThreadBinding stacks(shared_.stacks, -1);
  WorkerThread teardown(shared_, -1, -1);
  detail::set_current_worker(&teardown.worker(), -1, &shared_, false);
  while (Process* p = shared_.table.any()) {
    // Owned by nobody now: every worker has left, so a queued or blocked process is the runtime's again.
    p->cancel_ = true;
    p->state_.store(ProcessState::Ready, std::memory_order_relaxed);
    teardown.run_process(*p);
  }
  detail::set_current_worker(nullptr, -1, nullptr, false);
}

}  // namespace kpn
