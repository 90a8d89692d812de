#pragma once
// steal-half: Pheet's configurable work stealing (seed 001) on kpn's processes.
//
//   Queues are per worker and ordered by priority (ProcessOptions::priority, 0 to 7): a worker runs the
//   oldest process of its highest non-empty level. Spawned, yielding and unblocked processes go to the
//   back of their level on the spawner's, the yielder's and the waker's worker (a process unblocked from
//   outside the workers, by the deadlock monitor, on the worker it last ran on); the initial network is
//   dealt round-robin.
//   Thieves take half. An idle worker becomes a searcher (at most half the workers search at once) and
//   takes half of a victim's queue, rounded up, up to config::kMaxStealBatch: what the victim would run
//   last (the lowest priorities, and the youngest within a level). It runs the highest of them and queues
//   the rest.
//   Victims by place. A thief visits the others nearest first (places.hpp: same core, same cache, same
//   package, same NUMA node, the rest), each group from a random member on; without a topology (pin none)
//   all the others form one group, so the order is random.
//   Idle workers sleep through IdleWorkers (runtime/idle_workers.hpp): whoever makes a process runnable
//   where another worker could take it calls notify_work(); a searcher that found nothing for
//   config::kSearchUs sleeps after one more look at every queue.
//
// Who touches what: a slot's queue has its own lock; everything else in a slot belongs to its worker, except
// the counters, which others read only after the run.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/idle_search.hpp"
#include "runtime/pinning.hpp"
#include "runtime/scheduler.hpp"
#include "schedulers/places.hpp"
#include "schedulers/priority_run_queue.hpp"

namespace kpn {

class KPN_EXPORT StealHalfScheduler final : public Scheduler {
 public:
  std::string_view name() const noexcept override { return "steal-half"; }
  void start(SchedulerContext& context) override;
  void on_spawn(Process& p, Worker* spawner) override;
  void on_unblock(Process& p, Worker* waker) override;
  void on_yield(Process& p, Worker& w) override;
  Process* pick_next(Worker& w) override;
  void on_idle(Worker& w) override;
  std::vector<std::pair<std::string, double>> stats() const override;

  // The victims' order this run uses (valid after start()).
  const Places& places() const noexcept { return places_; }

 private:
  struct alignas(64) Slot {
    PriorityRunQueue queue;
    // The worker's own.
    IdleSearch search;  // the worker's own
    // Written by the worker (relaxed, no contention), summed after the run. The attempts and steals are
    // the worker's WorkerCounters too, kept here as well so that stats() needs no Worker after the run.
    std::atomic<std::uint64_t> steal_attempts{0};
    std::atomic<std::uint64_t> steals{0};
    std::atomic<std::uint64_t> stolen_processes{0};
    std::array<std::atomic<std::uint64_t>, kPlaces> steals_at{};
  };

  Slot& slot(const Worker& w) noexcept;
  bool shared() const noexcept { return workers_.size() > 1; }
  void push(Slot& s, Process& p);
  Process* steal(Worker& w, Slot& mine);
  // Visits victims [begin, end) of w's place order from a random one on; the first that yields work wins.
  Process* steal_from_group(Worker& w, Slot& mine, std::size_t begin, std::size_t end, Place place);
  bool any_queued() const noexcept;

  std::vector<Worker*> workers_;
  std::unique_ptr<Slot[]> slots_;
  Places places_;
  IdleWorkers* idle_ = nullptr;
  std::size_t next_initial_ = 0;  // round-robin cursor; used before the workers start only
};

}  // namespace kpn
