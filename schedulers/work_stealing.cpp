#include "schedulers/work_stealing.hpp"

#include <sched.h>

#include "runtime/process.hpp"
#include "runtime/worker.hpp"

namespace kpn {

void WorkStealingScheduler::start(std::span<Worker* const> workers) {
  workers_.assign(workers.begin(), workers.end());
  next_initial_ = 0;
}

void WorkStealingScheduler::on_spawn(Process& p, Worker* spawner) {
  if (spawner != nullptr) {
    spawner->queue().push_front(&p);
    return;
  }
  workers_[next_initial_]->queue().push_back(&p);
  next_initial_ = (next_initial_ + 1) % workers_.size();
}

void WorkStealingScheduler::on_unblock(Process& p, Worker* waker) {
  Worker* target = waker;
  if (placement_ == Unblock::Last || target == nullptr) {
    target = workers_[p.last_worker >= 0 ? static_cast<std::size_t>(p.last_worker) : 0];
  }
  target->queue().push_front(&p);
}

void WorkStealingScheduler::on_yield(Process& p, Worker& w) { w.queue().push_back(&p); }

Process* WorkStealingScheduler::pick_next(Worker& w) {
  if (Process* p = w.queue().pop_front()) return p;
  const std::size_t n = workers_.size();
  if (n < 2) return nullptr;
  // A uniformly random victim other than w.
  std::size_t victim = static_cast<std::size_t>(w.next_random() % (n - 1));
  if (victim >= static_cast<std::size_t>(w.index())) ++victim;
  WorkerCounters::bump(w.counters().steal_attempts);
  // Always take the victim's lock, even when its queue looks empty: that contention is what seed 000
  // measures, and what makes WS-CUR lose to WS-LAST at fine granularity.
  Process* p = workers_[victim]->queue().pop_back();
  if (p != nullptr) WorkerCounters::bump(w.counters().steals);
  return p;
}

void WorkStealingScheduler::on_idle(Worker&) { sched_yield(); }

}  // namespace kpn
