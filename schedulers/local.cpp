#include "schedulers/local.hpp"

#include "runtime/idle_workers.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/worker.hpp"

namespace kpn {

void LocalScheduler::start(SchedulerContext& context) {
  workers_ = context.workers().size();
  slots_ = std::make_unique<Slot[]>(workers_);  // a new run forgets the last run's queues
  next_initial_ = 0;
  idle_ = &context.idle_workers();
  // A worker's work only ever shows in its own queue: a spinning sleeper sees the size itself, and
  // notify_worker leaves it alone (idle_workers.hpp, watched words).
  for (std::size_t i = 0; i < workers_; ++i) idle_->watch(static_cast<unsigned>(i), &slots_[i].queue.size_word());
}

void LocalScheduler::queue_at(std::size_t w, Process& p, const Worker* by) {
  // Only the push that fills an empty queue wakes its worker: after it the worker is awake or being woken,
  // and it cannot sleep again before its queue is empty (its has_work is that queue), which means this
  // process was taken. A worker pushing into its own queue is awake.
  if (slots_[w].queue.push_back(&p) && (by == nullptr || static_cast<std::size_t>(by->index()) != w)) {
    idle_->notify_worker(static_cast<unsigned>(w));
  }
}

void LocalScheduler::on_spawn(Process& p, Worker* spawner) {
  std::size_t w;
  if (spawner != nullptr) {
    w = static_cast<std::size_t>(spawner->index());
  } else {
    w = next_initial_;
    next_initial_ = (next_initial_ + 1) % workers_;
  }
  p.policy_data<Home>().worker = static_cast<int>(w);
  queue_at(w, p, spawner);
}

void LocalScheduler::on_unblock(Process& p, Worker* waker) {
  queue_at(static_cast<std::size_t>(p.policy_data<Home>().worker), p, waker);
}

void LocalScheduler::on_yield(Process& p, Worker& w) { slots_[static_cast<std::size_t>(w.index())].queue.push_back(&p); }

Process* LocalScheduler::pick_next(Worker& w) { return slots_[static_cast<std::size_t>(w.index())].queue.pop_front(); }

void LocalScheduler::on_idle(Worker& w) {
  // Nobody else can give this worker work but through its queue, and nobody takes from it: it sleeps until
  // its queue fills (queue_at wakes it) or the run stops. It never searches; a wake-up that made it a
  // searcher all the same is handed back at its next sleep.
  const auto i = static_cast<unsigned>(w.index());
  Slot& s = slots_[i];
  idle_->sleep(i, [&s] { return s.queue.size_hint() > 0; });
}

std::vector<std::pair<std::string, double>> LocalScheduler::stats() const {
  std::vector<std::pair<std::string, double>> out;
  if (idle_ != nullptr) idle_->append_counts(out);
  return out;
}

int LocalScheduler::home_of(Process& p) const noexcept { return p.policy_data<Home>().worker; }

namespace {
const SchedulerRegistration local{"local", "per-worker queues without stealing; a process stays where it was placed (Zorro's local-pool baseline, seed 003)",
                                  [] { return std::make_unique<LocalScheduler>(); }};
}  // namespace

}  // namespace kpn
