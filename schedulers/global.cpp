#include "schedulers/global.hpp"

#include <algorithm>
#include <mutex>

#include "runtime/idle_workers.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/worker.hpp"

namespace kpn {

void GlobalScheduler::start(SchedulerContext& context) {
  // No worker runs yet: a new run forgets the last run's queue (its processes were unwound) and counters.
  idle_ = &context.idle_workers();
  workers_ = context.workers().size();
  std::lock_guard g(lock_);
  queue_.clear();
  counters_ = {};
  approx_size_.store(0, std::memory_order_relaxed);
}

void GlobalScheduler::on_spawn(Process& p, Worker*) { enqueue(p); }

void GlobalScheduler::on_unblock(Process& p, Worker*) { enqueue(p); }

void GlobalScheduler::on_yield(Process& p, Worker&) {
  // A process that yields to an empty queue is taken back at once by its own worker, which is awake (it
  // calls this from its loop, global has no direct switch): nothing for a sleeper to take, and the fence of
  // notify_work would be the price of every yield on one worker. Behind other processes, it is work an
  // idle worker could take, as Go's Gosched wakes one (wakep).
  if (push(p) != 0 && workers_ > 1) idle_->notify_work();
}

void GlobalScheduler::enqueue(Process& p) {
  push(p);
  // After the size's store, as notify_work requires (idle_workers.hpp: the waker's store, fence, load).
  // Also on one worker: a process unblocked from outside the workers (a blocking call's completion, the
  // deadlock monitor) may find the only worker asleep.
  idle_->notify_work();
}

std::size_t GlobalScheduler::push(Process& p) {
  acquire();
  std::lock_guard g(lock_, std::adopt_lock);
  const std::size_t before = queue_.size();
  queue_.push_back(&p);
  approx_size_.store(before + 1, std::memory_order_relaxed);
  ++counters_.pushes;
  counters_.max_length = std::max<std::uint64_t>(counters_.max_length, before + 1);
  return before;
}

Process* GlobalScheduler::pick_next(Worker& w) {
  // Always through the lock, even when the queue looks empty: Zorro's global pool does, and the contention
  // this costs is what the baseline is for.
  Process* p = nullptr;
  std::size_t left = 0;
  {
    acquire();
    std::lock_guard g(lock_, std::adopt_lock);
    if (queue_.size() == 0) {
      ++counters_.empty_polls;
      return nullptr;
    }
    p = queue_.pop_front();
    left = queue_.size();
    approx_size_.store(left, std::memory_order_relaxed);
    ++counters_.pops;
  }
  // A waker's sleeper found its work; it wakes the next one if it left some behind.
  idle_->found_work(static_cast<unsigned>(w.index()), left > 0);
  return p;
}

void GlobalScheduler::on_idle(Worker& w) {
  // The queue is the only place work shows; the worker sleeps until its size is non-zero (enqueue wakes
  // one sleeper) or the run stops.
  idle_->sleep(static_cast<unsigned>(w.index()), [this] { return approx_size_.load(std::memory_order_relaxed) > 0; });
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
  std::vector<std::pair<std::string, double>> out{{"queue_pushes", static_cast<double>(c.pushes)},
          {"queue_pops", static_cast<double>(c.pops)},
          {"empty_polls", static_cast<double>(c.empty_polls)},
          {"lock_acquisitions", static_cast<double>(c.acquisitions)},
          {"lock_contended", static_cast<double>(c.contended)},
          {"lock_contended_share",
           c.acquisitions == 0 ? 0.0 : static_cast<double>(c.contended) / static_cast<double>(c.acquisitions)},
          {"max_queue_length", static_cast<double>(c.max_length)}};
  if (idle_ != nullptr) idle_->append_counts(out);
  return out;
}

namespace {
const SchedulerRegistration global{
    "global", "one FIFO run-queue shared by all workers, every push and pop under its lock (Zorro's global-pool baseline, seed 003)",
    [] { return std::make_unique<GlobalScheduler>(); }};
}  // namespace

}  // namespace kpn
