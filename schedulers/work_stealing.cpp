#include "schedulers/work_stealing.hpp"

#include <memory>

#include <sched.h>

#include "runtime/process.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/worker.hpp"

namespace kpn {

std::string_view WorkStealingScheduler::name() const noexcept {
  if (stealing_ == Stealing::Off) return placement_ == Unblock::Current ? "ws-cur-nosteal" : "ws-last-nosteal";
  return placement_ == Unblock::Current ? "ws-cur" : "ws-last";
}

void WorkStealingScheduler::start(SchedulerContext& context) {
  const auto workers = context.workers();
  workers_.assign(workers.begin(), workers.end());
  slots_ = std::make_unique<Slot[]>(workers_.size());
  next_initial_ = 0;
}

void WorkStealingScheduler::on_spawn(Process& p, Worker* spawner) {
  if (spawner != nullptr) {
    queue(static_cast<std::size_t>(spawner->index())).push_front(&p);
    return;
  }
  queue(next_initial_).push_back(&p);
  next_initial_ = (next_initial_ + 1) % workers_.size();
}

void WorkStealingScheduler::on_unblock(Process& p, Worker* waker) {
  int target = waker != nullptr ? waker->index() : -1;
  if (placement_ == Unblock::Last || target < 0) target = p.last_worker() >= 0 ? p.last_worker() : 0;
  queue(static_cast<std::size_t>(target)).push_front(&p);
}

void WorkStealingScheduler::on_yield(Process& p, Worker& w) { queue(static_cast<std::size_t>(w.index())).push_back(&p); }

// The front of the worker's own queue, the first thing pick_next looks at: a switch made with it is the
// paper's, with one stack switch less. The racy size check spares the lock when the queue looks empty (a
// process pushed meanwhile is found by the loop's pick_next, which looks again under the lock).
Process* WorkStealingScheduler::pick_local(Worker& w) {
  return queue(static_cast<std::size_t>(w.index())).try_pop_front();
}

Process* WorkStealingScheduler::pick_next(Worker& w) {
  if (Process* p = queue(static_cast<std::size_t>(w.index())).pop_front()) return p;
  const std::size_t n = workers_.size();
  if (n < 2 || stealing_ == Stealing::Off) return nullptr;
  // A uniformly random victim other than w.
  std::size_t victim = static_cast<std::size_t>(w.next_random() % (n - 1));
  if (victim >= static_cast<std::size_t>(w.index())) ++victim;
  // Always take the victim's lock, even when its queue looks empty: that contention is what the paper
  // measures, and what makes WS-CUR lose to WS-LAST at fine granularity.
  Process* p = queue(victim).pop_back();
  w.note_steal(static_cast<int>(victim), p != nullptr ? 1 : 0);
  return p;
}

void WorkStealingScheduler::on_idle(Worker&) { sched_yield(); }

}  // namespace kpn

namespace kpn {
namespace {

const SchedulerRegistration ws_cur{
    "ws-cur", "work stealing; an unblocked process goes to the waker's worker (Nornir paper, original)",
    [] { return std::make_unique<WorkStealingScheduler>(WorkStealingScheduler::Unblock::Current); }};

const SchedulerRegistration ws_last{
    "ws-last", "work stealing; an unblocked process goes to the worker it last ran on (Nornir paper, modified)",
    [] { return std::make_unique<WorkStealingScheduler>(WorkStealingScheduler::Unblock::Last); }};

}  // namespace
}  // namespace kpn
