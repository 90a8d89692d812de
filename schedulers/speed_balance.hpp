#pragma once
// speed-balance: Hofmeyr, Iancu and Blagojevic's speed balancing (seed 004), for machines shared with other
// programs. A worker's speed is the CPU time its thread actually received divided by the wall time it was
// awake (CLOCK_THREAD_CPUTIME_ID of the worker thread; time asleep with nothing to run does not count), so a
// worker whose CPU another program also uses is slow whatever its queue length.
//
//   Queues are FIFO, per worker, and a process has a home: the worker it was placed on (the initial network
//   dealt round-robin, a spawned process on its spawner's) or last migrated to by the balancer. A yielding or
//   unblocked process goes to the back of its home's queue.
//   Balancing rounds. Each worker is a balancer, as in the paper: at its scheduling points, once its round is
//   due, it samples every worker's CPU clock (one balancer at a time: the paper's mutual exclusion on the
//   global speed; a worker that finds the lock taken tries at its next round), computes each worker's speed
//   over the time since that worker was last sampled, and the global speed (their mean). If its own speed is
//   above the global one, it pulls ONE queued process, the one that would run last, from the slowest worker
//   whose speed is below threshold x global (the paper's T_s = 0.9, against measurement noise) and that took
//   part in no migration for two intervals (so that both ends' speeds were measured after the last one).
//   Its next round is due after the interval plus a random extra of up to one interval (the paper's
//   randomisation, which keeps balancers from acting in lockstep and breaks migration cycles). Default
//   interval: 20 ms, what the paper found best for the CPU-bound EP benchmark (100 ms across all of NPB,
//   where migrations cost cache contents); option interval_ms.
//   A process that runs is never moved: a fiber cannot leave the thread it runs on (the paper's threads
//   can), and the one that would run last is the coldest in the cache. The paper moves the thread that has
//   migrated least; the two-interval block is what keeps a process from bouncing here.
//   In between rounds workers run their own queues. An idle worker (every one of its processes blocked)
//   looks at the other queues as a searcher and takes ONE queued process, the one that would run last there,
//   before it sleeps; the process runs there once and goes home when it next yields or is unblocked. The paper has no such step because its threads never leave a CPU idle: an SPMD thread
//   waits at a barrier by polling, so the CPU stays "busy". kpn's processes block instead, and a worker left
//   idle until the next round (up to 40 ms) while processes queue elsewhere would waste the CPU the policy
//   exists to use; taking one at a time keeps placement the balancer's business.
//   Idle workers sleep (runtime/idle_workers.hpp): whoever queues a process where another worker could take
//   it calls notify_work(); a searcher that found nothing for config::kSearchUs sleeps after one more look at
//   every queue. A sleeping worker runs no rounds (it has nothing to give or to measure); its sleep does not
//   count as slow.
//
// Who touches what: a slot's queue has its own lock. The sampling state (last samples, speeds, last
// migration) is guarded by balance_lock_ and read by stats() after the run. sleep_ns/asleep_since and the
// thread's clock are written by the slot's worker and read by balancers (atomics). Everything else in a slot
// belongs to its worker; the counters are read by others only after the run.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/idle_search.hpp"
#include "runtime/scheduler.hpp"
#include "schedulers/run_queue.hpp"

namespace kpn {

struct SpeedBalanceSettings {
  // Between a worker's balancing rounds: this plus a random extra of up to this.
  std::chrono::microseconds interval{20'000};
  // A worker gives a process only if its speed is below threshold x the global speed (0 < threshold <= 1).
  double threshold = 0.9;
  // Maps the CPU time measured on worker `index`'s thread to the one the balancer uses. Empty: the measured
  // time. Tests slow a worker down with it, as a program sharing its CPU would.
  std::function<std::int64_t(std::size_t index, std::int64_t cpu_ns)> cpu_time;

  // From key=value options: interval_ms (a number > 0) and threshold (0 < t <= 1). Throws
  // std::invalid_argument naming the allowed keys and values.
  static SpeedBalanceSettings parse(const SchedulerOptions& options);
};

class KPN_EXPORT SpeedBalanceScheduler final : public Scheduler {
 public:
  explicit SpeedBalanceScheduler(SpeedBalanceSettings settings = {});
  std::string_view name() const noexcept override { return "speed-balance"; }
  void start(SchedulerContext& context) override;
  void on_spawn(Process& p, Worker* spawner) override;
  void on_unblock(Process& p, Worker* waker) override;
  void on_yield(Process& p, Worker& w) override;
  Process* pick_next(Worker& w) override;
  void on_idle(Worker& w) override;
  int home_of(Process& p) const noexcept override;
  std::vector<std::pair<std::string, double>> stats() const override;

  const SpeedBalanceSettings& settings() const noexcept { return settings_; }

 private:
  // In each process's policy slot: its worker, written by whoever queues it (under that queue's lock,
  // which publishes it to the next holder).
  struct Home {
    int worker;
  };
  struct alignas(64) Slot {
    RunQueue queue;
    // Written once by the worker's thread (its first scheduling point), read by balancers after `clock_known`.
    clockid_t clock{};
    std::atomic<bool> clock_known{false};
    // Written by the worker around its sleeps, read by balancers: time asleep so far, and when the current
    // sleep began (0: awake).
    std::atomic<std::int64_t> slept_ns{0};
    std::atomic<std::int64_t> asleep_since{0};
    // Guarded by balance_lock_.
    bool sampled = false;
    std::int64_t last_cpu = 0, last_wall = 0, last_slept = 0;
    double speed = -1;  // over its last sample; -1 until measured
    std::int64_t last_migration_ns = INT64_MIN / 2;
    std::int64_t total_cpu = 0, total_awake = 0;  // summed over its samples, for stats()
    // The worker's own.
    std::int64_t next_round_ns = 0;
    IdleSearch search;  // the worker's own
    // Written by the worker (relaxed, no contention), summed after the run.
    std::atomic<std::uint64_t> rounds{0};
    std::atomic<std::uint64_t> migrations{0};  // processes it pulled in a round
    std::atomic<std::uint64_t> idle_steals{0};
  };

  Slot& slot(const Worker& w) noexcept;
  bool shared() const noexcept { return workers_.size() > 1; }
  void push(std::size_t worker, Process& p);
  void maybe_balance(Worker& w, Slot& mine);
  // Samples every worker's speed and pulls one process to `me` if it is fast and another slow; under
  // balance_lock_.
  void balance(std::size_t me, std::int64_t now);
  std::int64_t cpu_time_of(std::size_t index);
  Process* steal_one(Worker& w);
  bool any_queued() const noexcept;
  std::int64_t next_round(Worker& w, std::int64_t now) noexcept;

  SpeedBalanceSettings settings_;
  std::int64_t interval_ns_;
  std::vector<Worker*> workers_;
  std::unique_ptr<Slot[]> slots_;
  IdleWorkers* idle_ = nullptr;
  std::mutex balance_lock_;  // only ever try_lock'ed: a worker never waits for another's round
  std::size_t next_initial_ = 0;  // round-robin cursor; used before the workers start only
};

}  // namespace kpn
