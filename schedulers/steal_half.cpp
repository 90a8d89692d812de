#include "schedulers/steal_half.hpp"

#include "runtime/config.hpp"
#include "runtime/idle_workers.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/single_writer.hpp"
#include "runtime/worker.hpp"

namespace kpn {

void StealHalfScheduler::start(SchedulerContext& context) {
  const auto workers = context.workers();
  workers_.assign(workers.begin(), workers.end());
  slots_ = std::make_unique<Slot[]>(workers_.size());  // a new run forgets the last run's queues
  idle_ = &context.idle_workers();
  std::vector<int> pus;
  pus.reserve(workers_.size());
  for (const Worker* w : workers_) pus.push_back(w->pu());
  places_ = compute_places(context.topology(), pus);
  next_initial_ = 0;
}

StealHalfScheduler::Slot& StealHalfScheduler::slot(const Worker& w) noexcept {
  return slots_[static_cast<std::size_t>(w.index())];
}

void StealHalfScheduler::push(Slot& s, Process& p) { s.queue.push(&p, p.options().priority); }

void StealHalfScheduler::on_spawn(Process& p, Worker* spawner) {
  if (spawner == nullptr) {
    push(slots_[next_initial_], p);
    next_initial_ = (next_initial_ + 1) % workers_.size();
    return;
  }
  push(slot(*spawner), p);
  if (shared()) idle_->notify_work();
}

void StealHalfScheduler::on_unblock(Process& p, Worker* waker) {
  if (waker != nullptr && waker->index() >= 0) {
    push(slot(*waker), p);
    // One worker: it is awake, running the waker, and nobody else could take `p`.
    if (shared()) idle_->notify_work();
    return;
  }
  // From outside the workers (the deadlock monitor): every worker may be asleep, even the only one.
  const int last = p.last_worker();
  push(slots_[last >= 0 ? static_cast<std::size_t>(last) : 0], p);
  idle_->notify_work();
}

void StealHalfScheduler::on_yield(Process& p, Worker& w) {
  Slot& s = slot(w);
  const bool alone = s.queue.size_hint() == 0;
  push(s, p);
  // A process yielding to an empty queue runs again at once: nothing for a sleeper to take.
  if (shared() && !alone) idle_->notify_work();
}

Process* StealHalfScheduler::pick_next(Worker& w) {
  Slot& s = slot(w);
  Process* p = s.queue.pop_highest();
  if (p == nullptr) p = steal(w, s);
  if (p != nullptr) s.search.found(*idle_, [&s] { return s.queue.size_hint() > 0; });
  return p;
}

Process* StealHalfScheduler::steal(Worker& w, Slot& mine) {
  if (!shared()) return nullptr;
  if (!mine.search.begin(*idle_)) return nullptr;
  const auto& ends = places_.group_end[static_cast<std::size_t>(w.index())];
  std::size_t begin = 0;
  for (int l = 0; l < kPlaces; ++l) {
    const std::size_t end = ends[static_cast<std::size_t>(l)];
    if (end > begin) {
      if (Process* p = steal_from_group(w, mine, begin, end, static_cast<Place>(l))) return p;
    }
    begin = end;
  }
  return nullptr;
}

Process* StealHalfScheduler::steal_from_group(Worker& w, Slot& mine, std::size_t begin, std::size_t end, Place place) {
  const auto& victims = places_.victims[static_cast<std::size_t>(w.index())];
  const std::size_t n = end - begin;
  const std::size_t first = static_cast<std::size_t>(w.next_random() % n);
  std::array<PriorityRunQueue::Entry, config::kMaxStealBatch> batch;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t victim = victims[begin + (first + k) % n];
    Slot& v = slots_[victim];
    add_single_writer(mine.steal_attempts);
    // The lock only for a queue that shows work; steal_half takes at least one if it still has any.
    const std::size_t got = v.queue.size_hint() > 0 ? v.queue.steal_half(batch.data(), batch.size()) : 0;
    w.note_steal(static_cast<int>(victim), got);  // the report's counters, and the trace
    if (got == 0) continue;
    add_single_writer(mine.steals);
    add_single_writer(mine.stolen_processes, got);
    add_single_writer(mine.steals_at[static_cast<std::size_t>(place)]);
    // Run the highest priority of the batch; the rest keep their levels here. The batch comes lowest level
    // first and youngest first within a level, so pushing it backwards keeps each level's order.
    std::size_t best = got - 1;
    for (std::size_t i = got - 1; i-- > 0;) {
      if (batch[i].priority > batch[best].priority) best = i;
    }
    for (std::size_t i = got; i-- > 0;) {
      if (i != best) mine.queue.push(batch[i].process, batch[i].priority);
    }
    return batch[best].process;
  }
  return nullptr;
}

bool StealHalfScheduler::any_queued() const noexcept {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    if (slots_[i].queue.size_hint() > 0) return true;
  }
  return false;
}

void StealHalfScheduler::on_idle(Worker& w) {
  Slot& s = slot(w);
  if (s.search.keep_looking()) {
    IdleSearch::pause();
    return;
  }
  s.search.sleep(*idle_, static_cast<unsigned>(w.index()), [this] { return any_queued(); });
}

std::vector<std::pair<std::string, double>> StealHalfScheduler::stats() const {
  std::uint64_t attempts = 0, steals = 0, stolen = 0;
  std::array<std::uint64_t, kPlaces> at{};
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    attempts += slots_[i].steal_attempts.load(std::memory_order_relaxed);
    steals += slots_[i].steals.load(std::memory_order_relaxed);
    stolen += slots_[i].stolen_processes.load(std::memory_order_relaxed);
    for (std::size_t l = 0; l < at.size(); ++l) at[l] += slots_[i].steals_at[l].load(std::memory_order_relaxed);
  }
  std::vector<std::pair<std::string, double>> out{{"steal_attempts", static_cast<double>(attempts)},
                                                   {"steals", static_cast<double>(steals)},
                                                   {"stolen_processes", static_cast<double>(stolen)}};
  for (std::size_t l = 0; l < at.size(); ++l) {
    out.emplace_back(std::string("steals_") + to_string(static_cast<Place>(l)), static_cast<double>(at[l]));
  }
  if (idle_ != nullptr) idle_->append_counts(out);
  return out;
}

namespace {
const SchedulerRegistration steal_half{
    "steal-half",
    "Pheet's stealing: priority-ordered queues, thieves take half the lowest-priority work of the nearest victim "
    "(places: core, cache, package, NUMA node), idle workers sleep",
    [] { return std::make_unique<StealHalfScheduler>(); }};
}  // namespace

}  // namespace kpn
