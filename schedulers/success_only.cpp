#include "schedulers/success_only.hpp"

#include <array>

#include "runtime/config.hpp"
#include "runtime/idle_workers.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/single_writer.hpp"
#include "runtime/worker.hpp"

namespace kpn {

SuccessOnlyScheduler::Slot& SuccessOnlyScheduler::slot(const Worker& w) noexcept { return slots_[static_cast<std::size_t>(w.index())]; }

void SuccessOnlyScheduler::start(SchedulerContext& context) {
  workers_ = context.workers().size();
  words_ = (workers_ + 63) / 64;
  slots_ = std::make_unique<Slot[]>(workers_);  // a new run forgets the last run's queues and requests
  requests_ = std::make_unique<std::atomic<std::uint64_t>[]>(workers_ * words_);
  idle_ = &context.idle_workers();
  next_initial_ = 0;
}

void SuccessOnlyScheduler::on_spawn(Process& p, Worker* spawner) {
  if (spawner == nullptr) {
    slots_[next_initial_].queue.push_back(&p);
    next_initial_ = (next_initial_ + 1) % workers_;
    return;
  }
  slot(*spawner).queue.push_back(&p);
  after_local_push(*spawner);
}

void SuccessOnlyScheduler::on_unblock(Process& p, Worker* waker) {
  if (waker != nullptr && waker->index() >= 0) {
    slot(*waker).queue.push_back(&p);
    after_local_push(*waker);
    return;
  }
  // From outside the workers (the deadlock monitor): the owner may sleep, and only it may pop its queue.
  const int last = p.last_worker();
  const std::size_t owner = last >= 0 ? static_cast<std::size_t>(last) : 0;
  slots_[owner].queue.push_back(&p);
  idle_->notify_worker(static_cast<unsigned>(owner));
  if (shared()) idle_->notify_work();
}

void SuccessOnlyScheduler::on_yield(Process& p, Worker& w) {
  Slot& s = slot(w);
  const bool alone = s.queue.size_hint() == 0;
  s.queue.push_back(&p);
  // A process yielding to an empty queue runs again at once: nothing to give away.
  if (!alone) after_local_push(w);
}

void SuccessOnlyScheduler::after_local_push(Worker& w) {
  if (!shared()) return;
  Slot& s = slot(w);
  serve(static_cast<std::size_t>(w.index()), s);
  // What is left may interest a sleeper, which will register here (never lock this queue).
  if (s.queue.size_hint() > 0) idle_->notify_work();
}

Process* SuccessOnlyScheduler::pick_next(Worker& w) {
  Slot& s = slot(w);
  const auto me = static_cast<std::size_t>(w.index());
  Process* p = s.queue.pop_front();
  if (p == nullptr) {
    if (shared()) ask(w, s);
    return nullptr;
  }
  if (s.asked > 0) withdraw(me, s);
  s.search.found(*idle_, [&s] { return s.queue.size_hint() > 0; });
  if (shared()) serve(me, s);
  return p;
}

void SuccessOnlyScheduler::ask(Worker& w, Slot& mine) {
  mine.search.begin(*idle_);  // it asks either way; only a searcher keeps looking after a fruitless round (on_idle)
  const auto me = static_cast<std::size_t>(w.index());
  const std::size_t first = static_cast<std::size_t>(w.next_random() % workers_);
  for (std::size_t k = 0; k < workers_; ++k) {
    const std::size_t v = (first + k) % workers_;
    if (v == me || slots_[v].queue.size_hint() == 0 || asked(v, me)) continue;
    // Registering needs no lock and cannot fail: the victim answers when it next schedules.
    request_word(v, me).fetch_or(bit(me), std::memory_order_acq_rel);
    ++mine.asked;
    add_single_writer(mine.requests);
    if (asked(me, v)) add_single_writer(mine.cyclic_requests);
  }
}

void SuccessOnlyScheduler::withdraw(std::size_t thief, Slot& mine) {
  for (std::size_t v = 0; v < workers_; ++v) {
    if (v == thief || !asked(v, thief)) continue;
    // A victim serving meanwhile claims the bit first or finds it gone; either way the process moves once.
    if ((request_word(v, thief).fetch_and(~bit(thief), std::memory_order_acq_rel) & bit(thief)) != 0) {
      add_single_writer(mine.withdrawals);
    }
  }
  mine.asked = 0;
}

void SuccessOnlyScheduler::serve(std::size_t victim, Slot& mine) {
  bool any = false;
  for (std::size_t i = 0; i < words_ && !any; ++i) {
    any = requests_[victim * words_ + i].load(std::memory_order_relaxed) != 0;
  }
  if (!any) return;
  std::array<Process*, config::kMaxStealBatch> batch;
  for (std::size_t k = 0; k < workers_; ++k) {
    // Only this worker pops its queue, so a size it sees stays at least that until it pops again.
    if (mine.queue.size_hint() == 0) return;
    const std::size_t t = (mine.serve_from + k) % workers_;
    if (t == victim || !asked(victim, t)) continue;
    if ((request_word(victim, t).fetch_and(~bit(t), std::memory_order_acq_rel) & bit(t)) == 0) continue;  // withdrawn
    const std::size_t got = mine.queue.pop_front_half(batch.data(), batch.size());
    for (std::size_t i = 0; i < got; ++i) slots_[t].queue.push_back(batch[i]);
    add_single_writer(mine.pushes);
    add_single_writer(mine.pushed_processes, got);
    mine.serve_from = (t + 1) % workers_;
    idle_->notify_worker(static_cast<unsigned>(t));
  }
}

bool SuccessOnlyScheduler::has_work(std::size_t thief) noexcept {
  if (slots_[thief].queue.size_hint() > 0) return true;
  for (std::size_t v = 0; v < workers_; ++v) {
    if (v != thief && slots_[v].queue.size_hint() > 0 && !asked(v, thief)) return true;
  }
  return false;
}

void SuccessOnlyScheduler::on_idle(Worker& w) {
  Slot& s = slot(w);
  if (s.search.keep_looking()) {
    IdleSearch::pause();
    return;
  }
  const auto me = static_cast<std::size_t>(w.index());
  s.search.sleep(*idle_, static_cast<unsigned>(me), [this, me] { return has_work(me); });
}

std::vector<std::pair<std::string, double>> SuccessOnlyScheduler::stats() const {
  std::uint64_t requests = 0, cyclic = 0, withdrawals = 0, pushes = 0, pushed = 0;
  for (std::size_t i = 0; i < workers_; ++i) {
    requests += slots_[i].requests.load(std::memory_order_relaxed);
    cyclic += slots_[i].cyclic_requests.load(std::memory_order_relaxed);
    withdrawals += slots_[i].withdrawals.load(std::memory_order_relaxed);
    pushes += slots_[i].pushes.load(std::memory_order_relaxed);
    pushed += slots_[i].pushed_processes.load(std::memory_order_relaxed);
  }
  std::vector<std::pair<std::string, double>> out{{"steal_requests", static_cast<double>(requests)},
                                                   {"cyclic_requests", static_cast<double>(cyclic)},
                                                   {"withdrawn_requests", static_cast<double>(withdrawals)},
                                                   {"pushes", static_cast<double>(pushes)},
                                                   {"pushed_processes", static_cast<double>(pushed)}};
  if (idle_ != nullptr) idle_->append_counts(out);
  return out;
}

namespace {
const SchedulerRegistration success_only{
    "success-only",
    "HabaneroUPC++'s SuccessOnlyWS (seed 002): thieves register steal requests at loaded victims, which push them "
    "half their queue at their next scheduling point; no steal attempt fails; idle workers sleep",
    [] { return std::make_unique<SuccessOnlyScheduler>(); }};
}  // namespace

}  // namespace kpn
