#pragma once
// local: per-worker queues without stealing, the second baseline of "Zorro: a distributed thread-pool with
// stealing" (the floor the stealing policies must beat). A process is placed once and stays: the initial
// network is dealt round-robin over the workers, a spawned process lives with its spawner, and an unblocked
// or yielding process goes to the back of its own worker's queue (FIFO, so nothing on a worker starves).
// An idle worker sleeps until its own queue fills (runtime/idle_workers.hpp: spinning briefly on its queue's
// size, then on a futex), as Zorro's sleep on a condition variable; it never takes another worker's processes.
//
// It is also the example of docs/schedulers.md, "Writing a policy": it owns its queues (one locked deque
// per worker) and keeps its per-process data (the process's worker) in Process::policy_data.

#include <cstddef>
#include <memory>

#include "runtime/export.hpp"
#include "runtime/scheduler.hpp"
#include "schedulers/run_queue.hpp"

namespace kpn {

class KPN_EXPORT LocalScheduler final : public Scheduler {
 public:
  std::string_view name() const noexcept override { return "local"; }
  void start(SchedulerContext& context) override;
  void on_spawn(Process& p, Worker* spawner) override;
  void on_unblock(Process& p, Worker* waker) override;
  void on_yield(Process& p, Worker& w) override;
  Process* pick_next(Worker& w) override;
  void on_idle(Worker& w) override;
  int home_of(Process& p) const noexcept override;
  // The idle workers' counts: sleeps, wakeups, futex_wakes.
  std::vector<std::pair<std::string, double>> stats() const override;

 private:
  // In each process's policy slot: its worker. Written once, in on_spawn, before the process is queued
  // (the queue's lock publishes it); read only by whoever holds the process next.
  struct Home {
    int worker;
  };
  struct alignas(64) Slot {  // one cache line per worker's queue, so workers never share one
    RunQueue queue;
  };

  // Pushes `p` into worker `w`'s queue and wakes `w` if the push filled it and `by` (null: no worker) is
  // another worker.
  void queue_at(std::size_t w, Process& p, const Worker* by);

  std::size_t workers_ = 0;
  IdleWorkers* idle_ = nullptr;
  std::unique_ptr<Slot[]> slots_;
  std::size_t next_initial_ = 0;  // round-robin cursor; used before the workers start only
};

}  // namespace kpn
