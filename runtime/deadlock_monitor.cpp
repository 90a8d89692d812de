#include "runtime/deadlock_monitor.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <unordered_set>

#include <time.h>

#include "runtime/log.hpp"
#include "runtime/multi_wait.hpp"
#include "runtime/process.hpp"
#include "runtime/run_shared.hpp"
#include "runtime/trace_recorder.hpp"

namespace kpn {
namespace {

std::int64_t thread_cpu_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

DeadlockMonitor::DeadlockMonitor(RunShared& run, std::size_t max_capacity, unsigned scan_ms)
    : run_(run), max_capacity_(max_capacity), scan_ms_(scan_ms) {}

DeadlockMonitor::~DeadlockMonitor() { stop_scanning(); }

void DeadlockMonitor::start_scanning() {
  if (scan_ms_ == 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { scan_loop(); });
}

void DeadlockMonitor::stop_scanning() {
  {
    std::lock_guard g(sleep_mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t DeadlockMonitor::resolved() const {
  std::lock_guard g(analysis_mutex_);
  return resolved_;
}

void DeadlockMonitor::scan_loop() {
  std::chrono::nanoseconds wait = std::chrono::milliseconds(scan_ms_);
  std::unique_lock lock(sleep_mutex_);
  while (!wake_.wait_for(lock, wait, [this] { return stop_; })) {
    lock.unlock();
    const std::int64_t begin = thread_cpu_ns();
    scan_once();
    // A scan walks every process: on a huge network keep its share of one CPU near 2 %. Measured in this
    // thread's CPU time, not wall time: on an oversubscribed machine the thread may be preempted mid-scan,
    // and counting that would stretch the period for nothing.
    const auto took = std::chrono::nanoseconds(thread_cpu_ns() - begin);
    wait = std::max<std::chrono::nanoseconds>(std::chrono::milliseconds(scan_ms_), 50 * took);
    lock.lock();
  }
}

std::vector<BlockedProcess> DeadlockMonitor::collect_blocked(const std::vector<std::shared_ptr<ChannelView>>* alive) {
  std::vector<BlockedProcess> blocked;
  run_.table.for_each([&](Process& p) {
    if (p.state() != ProcessState::Blocked) return;
    // A timed waiter (a sleep, a read_for) will be readied by its timer: it waits for no one forever. Read
    // after the state's acquire, so it is this park's flag; a later park raises the count that
    // confirm_cycle compares.
    if (p.waits_with_timer()) return;
    if (const MultiWait* multi = p.multi_wait()) {
      // A select (multi_wait.hpp) waits on several channels and is blocked for good only if none of them
      // can proceed, that is only if every one of its counterparts is blocked too. At quiescence that is
      // so (nothing runs), and nothing can leave the select's frame, so it counts once per channel (Parks'
      // rule may grow a full one it waits to write to). A local scan cannot read that frame safely while
      // the network runs, so it leaves such a process out: a cycle through a select is then found only
      // when the network is quiescent, and a select never makes a false local cycle (it is no member).
      if (alive != nullptr) return;
      for (const WaitSlot& s : multi->slots) {
        blocked.push_back({p.id(), p.name(), s.channel, s.direction, {}, 0, {}, false, 0});
      }
      return;
    }
    blocked.push_back({p.id(), p.name(), p.wait_channel(), p.wait_direction(), {}, 0, {}, false, 0});
  });
  if (alive != nullptr) {
    // While processes run, a channel read from a process may already be gone (the process woke, went on
    // and dropped its endpoints): look only at channels that `alive` keeps alive.
    std::unordered_set<const ChannelView*> known;
    known.reserve(alive->size());
    for (const auto& c : *alive) known.insert(c.get());
    for (auto& b : blocked) {
      if (!known.contains(b.channel)) b.channel = nullptr;
    }
  }
  // Report in creation order (ids grow with it), whatever the table's order.
  std::sort(blocked.begin(), blocked.end(), [](const BlockedProcess& a, const BlockedProcess& b) { return a.id < b.id; });
  snapshot_channels(blocked);
  return blocked;
}

bool DeadlockMonitor::confirm_cycle(const std::vector<BlockedProcess>& first, const std::vector<std::size_t>& cycle) {
  std::vector<BlockedProcess> again;
  again.reserve(cycle.size());
  for (std::size_t i : cycle) {
    const BlockedProcess& b = first[i];
    if (!b.waiting_in_snapshot) return false;
    again.push_back({b.id, b.name, b.channel, b.direction, {}, 0, {}, false, 0});
  }
  snapshot_channels(again);
  for (std::size_t k = 0; k < cycle.size(); ++k) {
    const BlockedProcess& before = first[cycle[k]];
    const BlockedProcess& now = again[k];
    if (!now.waiting_in_snapshot || now.parks != before.parks || now.counterpart != before.counterpart ||
        now.counterpart_name != before.counterpart_name) {
      return false;
    }
  }
  return true;
}

bool DeadlockMonitor::resolve_artificial(std::vector<BlockedProcess>& blocked, const std::vector<std::size_t>* only,
                                         std::string& refused) {
  const Growth growth = choose_growth(blocked, max_capacity_, only);
  if (growth.channel == nullptr) {
    refused = growth.refused;
    return false;
  }
  // The first resolution is worth a warning; a network that needs it usually needs it again and again,
  // so the rest go to debug level and the count to the report.
  log().log(resolved_ == 0 ? spdlog::level::warn : spdlog::level::debug,
            "{}artificial deadlock resolved: channel '{}' grown from {} to {} messages{}", only != nullptr ? "local " : "",
            growth.channel->name(), growth.from, growth.to,
            resolved_ == 0 ? " (further resolutions are logged at debug level)" : "");
  ++resolved_;
  if (run_.trace != nullptr) {
    run_.trace->add_shared({run_.trace->now(), 0, growth.from, growth.to, growth.channel, 0, TraceKind::Growth, 0});
  }
  growth.channel->grow(growth.to);  // wakes its writer: the network goes on
  return true;
}

void DeadlockMonitor::on_quiescent() {
  std::lock_guard g(analysis_mutex_);
  // The scan may have woken a writer while this worker waited for the mutex: then it is not over.
  if (run_.stop.stopping() || run_.quiescence.active() != 0) return;
  if (run_.table.live() == 0) {
    run_.stop.request_stop();
    return;
  }
  // Nothing runs: every blocked process's channel is alive (its endpoint is in the process's frame).
  std::vector<BlockedProcess> blocked = collect_blocked(nullptr);
  std::string refused;
  if (resolve_artificial(blocked, nullptr, refused)) return;
  run_.stop.fail(std::make_unique<DeadlockError>(describe_deadlock(blocked, refused)));
}

void DeadlockMonitor::scan_once() {
  std::lock_guard g(analysis_mutex_);
  if (run_.stop.stopping()) return;
  // Held until the scan ends, so every channel it looks at stays alive.
  const std::vector<std::shared_ptr<ChannelView>> alive = run_.channels.list();
  std::vector<BlockedProcess> blocked = collect_blocked(&alive);
  const std::vector<std::size_t> cycle = find_wait_cycle(blocked);
  if (cycle.empty() || !confirm_cycle(blocked, cycle)) return;
  std::string refused;
  if (resolve_artificial(blocked, &cycle, refused)) return;
  std::vector<BlockedProcess> members;
  for (std::size_t i : cycle) members.push_back(blocked[i]);
  run_.stop.fail(std::make_unique<DeadlockError>(describe_deadlock(members, refused, /*local=*/true)));
}

}  // namespace kpn
