#pragma once
// Work stealing as the Nornir paper ("A simple improvement of the work-stealing scheduling algorithm",
// sections 2 and 3) describes it. A worker takes processes from the front of its own queue (LIFO); when
// that is empty it picks one random victim and tries to steal from the back of its queue; after a failed
// attempt the worker calls sched_yield() and tries again. Every attempt is counted, successful or not. The
// two variants differ only in where an unblocked process goes:
//   CURRENT (ws-cur): the front of the queue of the worker running the unblocking process;
//   LAST    (ws-last): the front of the queue of the worker the unblocked process last ran on.
// Initial processes are dealt round-robin over the workers; a spawned process goes to the front of its
// spawner's queue; a yielding process goes to the back of its own worker's queue, so the processes ahead
// of it run first. With Stealing::Off a worker never looks past its own queue (for measurements that must
// keep processes where they were put).
//
// The queues are this policy's own: one mutex-protected deque per worker (run_queue.hpp), as in the paper,
// because WS-LAST inserts at the front of another worker's queue.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/scheduler.hpp"
#include "schedulers/run_queue.hpp"

namespace kpn {

class KPN_EXPORT WorkStealingScheduler final : public Scheduler {
 public:
  enum class Unblock { Current, Last };
  enum class Stealing { On, Off };

  explicit WorkStealingScheduler(Unblock placement, Stealing stealing = Stealing::On)
      : placement_(placement), stealing_(stealing) {}

  std::string_view name() const noexcept override;
  void start(SchedulerContext& context) override;
  void on_spawn(Process& p, Worker* spawner) override;
  void on_unblock(Process& p, Worker* waker) override;
  void on_yield(Process& p, Worker& w) override;
  Process* pick_next(Worker& w) override;
  Process* pick_local(Worker& w) override;
  void on_idle(Worker& w) override;
  bool direct_handoff() const noexcept override { return false; }  // the paper's runtime, exactly

 private:
  struct alignas(64) Slot {
    RunQueue queue;
  };
  RunQueue& queue(std::size_t worker) noexcept { return slots_[worker].queue; }

  const Unblock placement_;
  const Stealing stealing_;
  std::vector<Worker*> workers_;
  std::unique_ptr<Slot[]> slots_;  // one per worker, made by start()
  std::size_t next_initial_ = 0;   // round-robin cursor; used before the workers start only
};

}  // namespace kpn
