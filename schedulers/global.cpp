#include "schedulers/global.hpp"

#include <algorithm>
#include <mutex>

#include <sched.h>

#include "runtime/config.hpp"
#include "runtime/scheduler_registry.hpp"

namespace kpn {

GlobalScheduler::GlobalScheduler()
    : slots_(std::make_unique<Process*[]>(config::kRunQueueInitialCapacity)),
      mask_(config::kRunQueueInitialCapacity - 1) {}

void GlobalScheduler::start(SchedulerContext&) {
  // No worker runs yet: a new run forgets the last run's queue (its processes were unwound) and counters.
  std::lock_guard g(lock_);
  head_ = 0;
  size_ = 0;
  counters_ = {};
  approx_size_.store(0, std::memory_order_relaxed);
}

void GlobalScheduler::on_spawn(Process& p, Worker*) { enqueue(p); }

void GlobalScheduler::on_unblock(Process& p, Worker*) { enqueue(p); }

void GlobalScheduler::on_yield(Process& p, Worker&) { enqueue(p); }

void GlobalScheduler::enqueue(Process& p) {
  acquire();
  std::lock_guard g(lock_, std::adopt_lock);
  grow_if_full();
  slots_[(head_ + size_) & mask_] = &p;
  ++size_;
  approx_size_.store(size_, std::memory_order_relaxed);
  ++counters_.pushes;
  counters_.max_length = std::max<std::uint64_t>(counters_.max_length, size_);
}

Process* GlobalScheduler::pick_next(Worker&) {
  // Always through the lock, even when the queue looks empty: Zorro's global pool does, and the contention
  // this costs is what the baseline is for.
  acquire();
  std::lock_guard g(lock_, std::adopt_lock);
  if (size_ == 0) {
    ++counters_.empty_polls;
    return nullptr;
  }
  Process* p = slots_[head_];
  head_ = (head_ + 1) & mask_;
  --size_;
  approx_size_.store(size_, std::memory_order_relaxed);
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

void GlobalScheduler::grow_if_full() {
  if (size_ <= mask_) return;
  const std::size_t cap = (mask_ + 1) * 2;
  auto bigger = std::make_unique<Process*[]>(cap);
  for (std::size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) & mask_];
  slots_ = std::move(bigger);
  mask_ = cap - 1;
  head_ = 0;
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
