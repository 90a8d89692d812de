#include "schedulers/global.hpp"

#include <algorithm>
#include <mutex>

#include <sched.h>

#include "runtime/config.hpp"
#include "runtime/scheduler_registry.hpp"

namespace kpn {

void GlobalScheduler::start(SchedulerContext&) {
  // No worker runs yet: a new run forgets the last run's queue (its processes were unwound) and counters.
  std::lock_guard g(lock_);
  queue_.clear();
  counters_ = {};
  approx_size_.store(0, std::memory_order_relaxed);
}

void GlobalScheduler::on_spawn(Process& p, Worker*) { enqueue(p); }

void GlobalScheduler::on_unblock(Process& p, Worker*) { enqueue(p); }

void GlobalScheduler::on_yield(Process& p, Worker&) { enqueue(p); }

void GlobalScheduler::enqueue(Process& p) {
  acquire();
  std::lock_guard g(lock_, std::adopt_lock);
  queue_.push_back(&p);
  approx_size_.store(queue_.size(), std::memory_order_relaxed);
  ++counters_.pushes;
  counters_.max_length = std::max<std::uint64_t>(counters_.max_length, queue_.size());
}

Process* GlobalScheduler::pick_next(Worker&) {
  // Always through the lock, even when the queue looks empty: Zorro's global pool does, and the contention
  // this costs is what the baseline is for.
  acquire();
  std::lock_guard g(lock_, std::adopt_lock);
  if (queue_.size() == 0) {
    ++counters_.empty_polls;
    return nullptr;
  }
  Process* p = queue_.pop_front();
  approx_size_.store(queue_.size(), std::memory_order_relaxed);
  ++counters_.pops;
  return p;
}

void GlobalScheduler::on_idle(Worker&) {
  // Give the CPU away only if there is still nothing to take (the queue may have filled since the poll).
  if (approx_size_.load(std::memory_order_relaxed) == 0) sched_yield();
}

void GlobalScheduler::acquire() noexcept {
  const bool contended = !lock_.try_lock();
  if (contended) lock_.lock();
  ++counters_.acquisitions;
  if (contended) ++counters_.contended;
}

std::vector<std::pair<std::string, double>> GlobalScheduler::stats() const {
  // Every worker has stopped (Scheduler::stats's contract): the counters are read without the lock.
  const Counters& c = counters_;
  return {{"queue_pushes", static_cast<double>(c.pushes)},
          {"queue_pops", static_cast<double>(c.pops)},
          {"empty_polls", static_cast<double>(c.empty_polls)},
          {"lock_acquisitions", static_cast<double>(c.acquisitions)},
          {"lock_contended", static_cast<double>(c.contended)},
          {"lock_contended_share",
           c.acquisitions == 0 ? 0.0 : static_cast<double>(c.contended) / static_cast<double>(c.acquisitions)},
          {"max_queue_length", static_cast<double>(c.max_length)}};
}

namespace {
const SchedulerRegistration global{
    "global", "one FIFO run-queue shared by all workers, every push and pop under its lock (Zorro's global-pool baseline, seed 003)",
    [] { return std::make_unique<GlobalScheduler>(); }};
}  // namespace

}  // namespace kpn
