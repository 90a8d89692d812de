#pragma once
// Work stealing as seed 000 (sections 2 and 3) describes it. A worker takes processes from the front of
// its own queue (LIFO); when that is empty it picks one random victim and tries to steal from the back of
// its queue; after a failed attempt the worker calls sched_yield() and tries again. Every attempt is
// counted, successful or not. The two variants differ only in where an unblocked process goes:
//   CURRENT (ws-cur): the front of the queue of the worker running the unblocking process;
//   LAST    (ws-last): the front of the queue of the worker the unblocked process last ran on.
// Initial processes are dealt round-robin over the workers; a spawned process goes to the front of its
// spawner's queue; a yielding process goes to the back of its own worker's queue, so the processes ahead
// of it run first.

#include <cstddef>
#include <span>
#include <vector>

#include "runtime/scheduler.hpp"

namespace kpn {

class WorkStealingScheduler final : public Scheduler {
 public:
  enum class Unblock { Current, Last };

  explicit WorkStealingScheduler(Unblock placement) : placement_(placement) {}

  std::string_view name() const noexcept override { return placement_ == Unblock::Current ? "ws-cur" : "ws-last"; }
  void start(std::span<Worker* const> workers) override;
  void on_spawn(Process& p, Worker* spawner) override;
  void on_unblock(Process& p, Worker* waker) override;
  void on_yield(Process& p, Worker& w) override;
  Process* pick_next(Worker& w) override;
  void on_idle(Worker& w) override;

 private:
  const Unblock placement_;
  std::vector<Worker*> workers_;
  std::size_t next_initial_ = 0;  // round-robin cursor; used before the workers start only
};

}  // namespace kpn
