#include "schedulers/speed_balance.hpp"

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "runtime/idle_workers.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/single_writer.hpp"
#include "runtime/steady_time.hpp"
#include "runtime/worker.hpp"

namespace kpn {
namespace {

constexpr const char* kAllowed = "allowed: interval_ms=<milliseconds > 0, default 20>, threshold=<0 < t <= 1, default 0.9>";

double parse_number(const std::string& key, const std::string& value, const char* expected) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || errno != 0 || !std::isfinite(v)) {
    throw std::invalid_argument(
        fmt::format("speed-balance: option {}='{}' is not a number (expected {}; {})", key, value, expected, kAllowed));
  }
  return v;
}

}  // namespace

SpeedBalanceScheduler::Slot& SpeedBalanceScheduler::slot(const Worker& w) noexcept { return slots_[static_cast<std::size_t>(w.index())]; }

SpeedBalanceSettings SpeedBalanceSettings::parse(const SchedulerOptions& options) {
  SpeedBalanceSettings s;
  for (const auto& [key, value] : options) {
    if (key == "interval_ms") {
      const double ms = parse_number(key, value, "milliseconds > 0");
      // Below a microsecond the interval would round to zero; above an hour nothing would ever balance.
      if (!(ms >= 0.001 && ms <= 3'600'000)) {
        throw std::invalid_argument(fmt::format(
            "speed-balance: option interval_ms={} is out of range (expected 0.001 to 3600000 milliseconds; {})", value,
            kAllowed));
      }
      s.interval = std::chrono::microseconds(static_cast<std::int64_t>(std::llround(ms * 1000)));
    } else if (key == "threshold") {
      const double t = parse_number(key, value, "0 < t <= 1");
      if (!(t > 0 && t <= 1)) {
        throw std::invalid_argument(
            fmt::format("speed-balance: option threshold={} is out of range (expected 0 < t <= 1; {})", value, kAllowed));
      }
      s.threshold = t;
    } else {
      throw std::invalid_argument(fmt::format("speed-balance: unknown option '{}' ({})", key, kAllowed));
    }
  }
  return s;
}

SpeedBalanceScheduler::SpeedBalanceScheduler(SpeedBalanceSettings settings)
    : settings_(std::move(settings)),
      interval_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(settings_.interval).count()) {
  if (interval_ns_ <= 0 || !(settings_.threshold > 0 && settings_.threshold <= 1)) {
    throw std::invalid_argument(fmt::format("speed-balance: interval must be > 0 and threshold in (0, 1] ({})", kAllowed));
  }
}

void SpeedBalanceScheduler::start(SchedulerContext& context) {
  const auto workers = context.workers();
  workers_.assign(workers.begin(), workers.end());
  slots_ = std::make_unique<Slot[]>(workers_.size());  // a new run forgets the last run's queues and samples
  idle_ = &context.idle_workers();
  next_initial_ = 0;
}

void SpeedBalanceScheduler::push(std::size_t worker, Process& p) {
  p.policy_data<Home>().worker = static_cast<int>(worker);
  slots_[worker].queue.push_back(&p);
}

void SpeedBalanceScheduler::on_spawn(Process& p, Worker* spawner) {
  if (spawner == nullptr) {
    push(next_initial_, p);
    next_initial_ = (next_initial_ + 1) % workers_.size();
    return;
  }
  push(static_cast<std::size_t>(spawner->index()), p);
  if (shared()) idle_->notify_work();
}

void SpeedBalanceScheduler::on_unblock(Process& p, Worker* waker) {
  push(static_cast<std::size_t>(p.policy_data<Home>().worker), p);
  // From outside the workers (the deadlock monitor) every worker may sleep, even the only one; otherwise the
  // waker is awake, and with one worker it is the only one who could run `p`.
  const bool outside = waker == nullptr || waker->index() < 0;
  if (outside || shared()) idle_->notify_work();
}

void SpeedBalanceScheduler::on_yield(Process& p, Worker& w) {
  const auto home = static_cast<std::size_t>(p.policy_data<Home>().worker);
  const bool alone = home == static_cast<std::size_t>(w.index()) && slots_[home].queue.size_hint() == 0;
  push(home, p);
  // A process yielding to an empty queue of its own worker runs again at once: nothing for a sleeper.
  if (shared() && !alone) idle_->notify_work();
}

Process* SpeedBalanceScheduler::pick_next(Worker& w) {
  Slot& s = slot(w);
  if (!s.clock_known.load(std::memory_order_relaxed)) {
    if (pthread_getcpuclockid(pthread_self(), &s.clock) == 0) s.clock_known.store(true, std::memory_order_release);
  }
  if (shared()) maybe_balance(w, s);
  Process* p = s.queue.pop_front();
  if (p == nullptr && shared()) p = steal_one(w);
  if (p != nullptr) s.search.found(*idle_, [&s] { return s.queue.size_hint() > 0; });
  return p;
}

std::int64_t SpeedBalanceScheduler::next_round(Worker& w, std::int64_t now) noexcept {
  return now + interval_ns_ + static_cast<std::int64_t>(w.next_random() % static_cast<std::uint64_t>(interval_ns_));
}

void SpeedBalanceScheduler::maybe_balance(Worker& w, Slot& mine) {
  const std::int64_t now = steady_ns();
  if (mine.next_round_ns == 0) {  // the first round after one full interval, so that speeds exist
    mine.next_round_ns = next_round(w, now);
    return;
  }
  if (now < mine.next_round_ns) return;
  mine.next_round_ns = next_round(w, now);
  std::unique_lock lock(balance_lock_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another worker balances right now
  add_single_writer(mine.rounds);
  balance(static_cast<std::size_t>(w.index()), now);
}

std::int64_t SpeedBalanceScheduler::cpu_time_of(std::size_t index) {
  const Slot& s = slots_[index];
  if (!s.clock_known.load(std::memory_order_acquire)) return -1;
  timespec ts{};
  if (clock_gettime(s.clock, &ts) != 0) return -1;
  const std::int64_t ns = std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
  return settings_.cpu_time ? settings_.cpu_time(index, ns) : ns;
}

void SpeedBalanceScheduler::balance(std::size_t me, std::int64_t now) {
  const std::size_t n = workers_.size();
  // Sample: each worker's speed since its last sample, over the time it was awake.
  for (std::size_t k = 0; k < n; ++k) {
    Slot& s = slots_[k];
    const std::int64_t cpu = cpu_time_of(k);
    if (cpu < 0) continue;
    // asleep_since before slept_ns: the worker adds a finished sleep to slept_ns before it clears asleep_since,
    // so a sleep is counted at least once (twice at worst, which the clamp below bounds).
    const std::int64_t since = s.asleep_since.load(std::memory_order_acquire);
    std::int64_t slept = s.slept_ns.load(std::memory_order_acquire);
    if (since != 0 && now > since) slept += now - since;
    if (!s.sampled) {
      s.sampled = true;
      s.last_cpu = cpu;
      s.last_wall = now;
      s.last_slept = slept;
      continue;
    }
    const std::int64_t wall = now - s.last_wall;
    if (wall < interval_ns_ / 2) continue;  // too short to tell speed from noise; sampled at a later round
    const std::int64_t awake = wall - std::clamp<std::int64_t>(slept - s.last_slept, 0, wall);
    const std::int64_t used = cpu - s.last_cpu;
    s.last_cpu = cpu;
    s.last_wall = now;
    s.last_slept = std::max(slept, s.last_slept);
    // Asleep most of the time: no speed to measure (a CPU with nothing to run is not slow); keep the last one.
    if (awake < wall / 4) continue;
    s.speed = static_cast<double>(used) / static_cast<double>(awake);
    s.total_cpu += used;
    s.total_awake += awake;
  }
  // The global speed, and whether this worker is fast enough to pull.
  double sum = 0;
  std::size_t measured = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (slots_[k].speed >= 0) {
      sum += slots_[k].speed;
      ++measured;
    }
  }
  Slot& mine = slots_[me];
  if (measured < 2 || mine.speed < 0) return;
  const double global = sum / static_cast<double>(measured);
  const std::int64_t block = 2 * interval_ns_;
  if (mine.speed <= global || now - mine.last_migration_ns < block) return;
  std::size_t slowest = n;
  for (std::size_t k = 0; k < n; ++k) {
    const Slot& s = slots_[k];
    if (k == me || s.speed < 0 || s.speed >= settings_.threshold * global) continue;
    if (now - s.last_migration_ns < block || s.queue.size_hint() == 0) continue;
    if (slowest == n || s.speed < slots_[slowest].speed) slowest = k;
  }
  if (slowest == n) return;
  Process* p = slots_[slowest].queue.pop_back();
  if (p == nullptr) return;  // its worker ran it meanwhile
  push(me, *p);
  slots_[slowest].last_migration_ns = now;
  mine.last_migration_ns = now;
  add_single_writer(mine.migrations);
}

Process* SpeedBalanceScheduler::steal_one(Worker& w) {
  Slot& mine = slot(w);
  if (!mine.search.begin(*idle_)) return nullptr;
  const std::size_t n = workers_.size();
  const std::size_t first = static_cast<std::size_t>(w.next_random() % n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t v = (first + k) % n;
    if (v == static_cast<std::size_t>(w.index())) continue;
    // The lock only for a queue that shows work.
    Process* p = slots_[v].queue.size_hint() > 0 ? slots_[v].queue.pop_back() : nullptr;
    w.note_steal(static_cast<int>(v), p != nullptr ? 1 : 0);
    if (p != nullptr) {
      add_single_writer(mine.idle_steals);
      return p;  // its home stays: it goes back there when it next yields or is unblocked
    }
  }
  return nullptr;
}

bool SpeedBalanceScheduler::any_queued() const noexcept {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    if (slots_[i].queue.size_hint() > 0) return true;
  }
  return false;
}

void SpeedBalanceScheduler::on_idle(Worker& w) {
  Slot& s = slot(w);
  if (s.search.keep_looking()) {
    IdleSearch::pause();
    return;
  }
  const std::int64_t began = steady_ns();
  s.asleep_since.store(began, std::memory_order_release);
  s.search.sleep(*idle_, static_cast<unsigned>(w.index()), [this] { return any_queued(); });
  const std::int64_t woke = steady_ns();
  s.slept_ns.store(s.slept_ns.load(std::memory_order_relaxed) + (woke - began), std::memory_order_release);
  s.asleep_since.store(0, std::memory_order_release);
}

int SpeedBalanceScheduler::home_of(Process& p) const noexcept { return p.policy_data<Home>().worker; }

std::vector<std::pair<std::string, double>> SpeedBalanceScheduler::stats() const {
  std::uint64_t rounds = 0, migrations = 0, idle_steals = 0;
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const Slot& s = slots_[i];
    rounds += s.rounds.load(std::memory_order_relaxed);
    migrations += s.migrations.load(std::memory_order_relaxed);
    idle_steals += s.idle_steals.load(std::memory_order_relaxed);
  }
  out.emplace_back("balancing_rounds", static_cast<double>(rounds));
  out.emplace_back("migrations", static_cast<double>(migrations));
  out.emplace_back("idle_steals", static_cast<double>(idle_steals));
  // Each worker's speed over the time it was awake and sampled (-1: never measured, e.g. a run shorter than
  // an interval).
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const Slot& s = slots_[i];
    const double speed = s.total_awake > 0 ? static_cast<double>(s.total_cpu) / static_cast<double>(s.total_awake) : -1;
    out.emplace_back(fmt::format("speed_w{}", i), speed);
  }
  out.emplace_back("interval_ms", static_cast<double>(interval_ns_) / 1e6);
  if (idle_ != nullptr) idle_->append_counts(out);
  return out;
}

namespace {
const SchedulerRegistration speed_balance{
    "speed-balance",
    "speed balancing (seed 004): per-worker queues; every ~interval_ms (default 20, randomised) a fast worker pulls "
    "one process from the slowest, speed being CPU time received / wall time; for shared machines",
    [](const SchedulerOptions& options) { return std::make_unique<SpeedBalanceScheduler>(SpeedBalanceSettings::parse(options)); }};
}  // namespace

}  // namespace kpn
