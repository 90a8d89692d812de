#include "schedulers/local.hpp"

#include <sched.h>

#include "runtime/process.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/worker.hpp"

namespace kpn {

void LocalScheduler::start(SchedulerContext& context) {
  workers_ = context.workers().size();
  slots_ = std::make_unique<Slot[]>(workers_);  // a new run forgets the last run's queues
  next_initial_ = 0;
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
  slots_[w].queue.push_back(&p);
}

void LocalScheduler::on_unblock(Process& p, Worker*) {
  slots_[static_cast<std::size_t>(p.policy_data<Home>().worker)].queue.push_back(&p);
}

void LocalScheduler::on_yield(Process& p, Worker& w) { slots_[static_cast<std::size_t>(w.index())].queue.push_back(&p); }

Process* LocalScheduler::pick_next(Worker& w) { return slots_[static_cast<std::size_t>(w.index())].queue.pop_front(); }

void LocalScheduler::on_idle(Worker&) { sched_yield(); }

int LocalScheduler::home_of(Process& p) const noexcept { return p.policy_data<Home>().worker; }

namespace {
const SchedulerRegistration local{"local", "per-worker queues without stealing; a process stays where it was placed (Zorro's local-pool baseline, seed 003)",
                                  [] { return std::make_unique<LocalScheduler>(); }};
}  // namespace

}  // namespace kpn
