#include "schedulers/handoff.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <thread>

#include "runtime/config.hpp"
#include "runtime/current.hpp"
#include "runtime/cycle_clock.hpp"
#include "runtime/idle_workers.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/single_writer.hpp"
#include "runtime/steady_time.hpp"
#include "runtime/worker.hpp"

namespace kpn {
namespace {
// A process's policy data: the worker whose process last readied it, plus one (0: none yet, or readied
// from outside the workers). Written by the waker in on_unblock, while it owns the process; read by a
// thief while the process sits in a queue, under that queue's lock, which the push that queued it took
// after the write.
struct WokenBy {
  int worker_plus_one;
};
}  // namespace

void HandoffScheduler::start(SchedulerContext& context) {
  const auto workers = context.workers();
  workers_.assign(workers.begin(), workers.end());
  slots_ = std::make_unique<Slot[]>(workers_.size());  // a new run forgets the last run's queues
  queued_words_ = (workers_.size() + 63) / 64;
  queued_ = std::make_unique<QueuedWord[]>(queued_words_);
  idle_ = &context.idle_workers();
  // One worker has nobody to summarise for (and its queue fills and empties at every switch).
  for (std::size_t i = 0; i < workers_.size() && shared(); ++i) {
    slots_[i].queue.track_occupancy(&queued_[i / 64].bits, std::uint64_t{1} << (i % 64));
    // notify_worker is called only by queue_at_home, after a push that filled this queue: a spinning home
    // sees its queue's size itself, and the waker writes none of its lines.
    idle_->watch(static_cast<unsigned>(i), &slots_[i].queue.size_word());
  }
  // A hand-off whose waker computes on without having woken anyone is found by a napping worker.
  idle_->nap_while_others_run(true);
  long_run_ticks_ = std::uint64_t{config::kStaleNextUs} * cycle_clock::ticks_per_us();
  futile_run_ticks_ = std::uint64_t{config::kFutileRunUs} * cycle_clock::ticks_per_us();
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    slots_[i].seen.resize(workers_.size());
    slots_[i].tail_ewma = long_run_ticks_;  // unknown counts as long: wake a searcher until it is learnt
  }
  next_initial_ = 0;
  initial_processes_ = 0;
}

void HandoffScheduler::on_network_size(std::size_t processes) { initial_processes_ = processes; }

void HandoffScheduler::on_spawn(Process& p, Worker* spawner) {
  if (spawner == nullptr) {
    // Consecutive blocks in declaration order: the k-th of n processes goes to worker k * W / n, so the
    // blocks differ in size by one at most. A count never told (a caller that skips on_network_size), or
    // exceeded, deals the rest round-robin.
    const std::size_t w = next_initial_ < initial_processes_ ? next_initial_ * workers_.size() / initial_processes_
                                                              : next_initial_ % workers_.size();
    slots_[w].queue.push_back_fresh(&p);
    ++next_initial_;
    return;
  }
  slot(*spawner).queue.push_back_fresh(&p);
  if (shared()) idle_->notify_work();
}

void HandoffScheduler::on_unblock(Process& p, Worker* waker) {
  if (waker != nullptr && waker->index() >= 0) {
    Slot& s = slot(*waker);
    add_single_writer(s.handoffs);
    if (!shared()) {
      // One worker, so no thief: the slot is this thread's alone, and the worker is awake (it runs the waker).
      if (!p.readied_in_last_run()) return queue_gatherer(s, p);
      if (Process* displaced = s.next.load(std::memory_order_relaxed)) s.queue.push_back(displaced);
      s.next.store(&p, std::memory_order_relaxed);
      return;
    }
    // Only thieves read it (steal_queued), and one worker has none.
    p.policy_data<WokenBy>().worker_plus_one = waker->index() + 1;
    // A process whose own worker has work of its own stays there: pulling it to the waker would move the
    // work of a busy worker onto another busy one (a pipeline's stages would follow their messages from
    // worker to worker, and thieves would keep carrying them back). Only a process whose worker has run
    // out of work (a ping-pong's other half, a scatter-gather worker) comes to the waker's next slot.
    // Work of its own is a queued process or one in its next slot; and, while the waker's worker has a
    // queue of its own, also a process it runs now (it has not announced a sleep, IdleWorkers::idle): both
    // workers are busy, so the woken process waits for its home's switch rather than jump the waker's
    // queue. (Pulled instead, the stage beside a pipeline's boundary came to the other worker each time its
    // channel filled, while its home ran the stages before it, and a thief carried it back: on 2 workers
    // four times the steals, and 10 % more wall at capacities 1 and 4.) A waker whose queue is empty runs
    // dry when it blocks, so it takes the process: a scatter-gather master woken by the last reply of a
    // round comes to the worker that sent it, instead of drawing that worker's search to its home's queue.
    // Racy looks: a wrong guess costs a cross-worker message, never a lost process (it is queued either way).
    // A burst (the waker has already handed off a process it has not yet switched to: a scatter-gather
    // master writing to its workers) sends the process home too, whatever its home is doing: the waker runs
    // one process next, not all of them; an idle home takes it without a steal, a busy one after what it
    // runs now, and thieves even out the rest. The burst is told by the waker's own slot, before any look
    // at the home's lines. (Kept home only when the home was idle, the processes of a home busy with its
    // last one came here and thieves carried them back: five times as many processes stolen.)
    const int last = p.last_worker();
    if (last >= 0 && last != waker->index()) {
      Slot& home = slots_[static_cast<std::size_t>(last)];
      if (s.next.load(std::memory_order_relaxed) != nullptr || home.queue.size_hint() != 0 ||
          home.next.load(std::memory_order_relaxed) != nullptr ||
          (s.queue.size_hint() != 0 && !idle_->idle(static_cast<unsigned>(last)))) {
        queue_at_home(s, p, static_cast<std::size_t>(last));
        return;
      }
    }
    // A gatherer (queue_gatherer) that last ran here waits behind this worker's queue. One that comes
    // from an idle worker still takes the next slot: behind the queue it would leave its own worker idle
    // and draw a thief to this one.
    if (!p.readied_in_last_run() && last == waker->index()) return queue_gatherer(s, p);
    if (Process* displaced = s.next.exchange(&p, std::memory_order_acq_rel)) {
      // Displaced by a later hand-off (a burst): home, if it came from another worker that is idle.
      const int from = displaced->last_worker();
      if (from >= 0 && from != waker->index() && idle_->idle(static_cast<unsigned>(from))) {
        queue_at_home(s, *displaced, static_cast<std::size_t>(from));
        return;
      }
      s.queue.push_back(displaced);
    } else if (!runs_long(current_process())) {
      // A waker that blocks again within microseconds (ping-pong, a scatter-gather master) runs `p` itself
      // next; waking a sleeper for it would only cost the waker a system call.
      return;
    } else {
      // A waker that computes between its channel operations may keep `p` waiting, unless it blocks right
      // after waking it (a scatter-gather worker replying). Which of the two, this worker has learnt from
      // the last hand-offs; pick_next measures this one.
      s.tail_began = cycle_clock::now();
      if (s.tail_ewma < long_run_ticks_) return;
    }
    // A searcher should look (take_stale_next) rather than leave a pipeline serialised on one worker.
  } else {
    const int last = p.last_worker();
    slots_[last >= 0 ? static_cast<std::size_t>(last) : 0].queue.push_back(&p);
  }
  idle_->notify_work();
}

void HandoffScheduler::queue_gatherer(Slot& s, Process& p) {
  // Its last run readied nobody: it took what it waited for and blocked again (a scatter-gather master
  // collecting replies, a pipeline stage or sink behind a roomy channel). Run next, it would take one
  // message and switch back; behind the queue it finds more to take in one run. A sleeper is woken for it
  // only where a hand-off would wake one (on_unblock: an empty queue, a waker that computes); a queue that
  // already held work had its wake-up from whoever queued that work.
  if (!s.queue.push_back(&p) || !shared() || !runs_long(current_process())) return;
  idle_->notify_work();
}

void HandoffScheduler::queue_at_home(Slot& s, Process& p, std::size_t home) {
  // Only the push that fills an empty queue wakes anyone. After it, the home worker is awake or being woken
  // (or took its sleep back, having seen the entry: idle_workers.hpp), and it cannot sleep again before the
  // queue is empty, which means this entry was taken too: every pop that empties the queue after this push
  // takes it, and whoever takes a process runs it. A burst of pushes then costs one wake-up, not one fence
  // and one cross-CPU load per process.
  if (!slots_[home].queue.push_back(&p)) return;
  // An idle home is woken for it (no searcher needed).
  if (idle_->notify_worker(static_cast<unsigned>(home))) return;
  // A busy home may be inside a long computation, so an idle worker should be free to take it: the waker
  // owes a notify_work, paid at its next switch (take_local), once for the whole burst rather than once
  // per process. Paid at once, each is a fence, loads of the shared counts, often a scan of every worker's
  // word and a claim (on 8 and 16 CPUs at 1 us per message a scatter-gather master spent a fifth of its
  // time on them). Until then the home takes the process at its own next switch, and a napping worker
  // within a nap (idle_workers.hpp); a waker that computes long after its burst delays only that.
  s.owes_notify = true;
}

bool HandoffScheduler::runs_long(const Process* waker) const noexcept {
  // No process on the waking worker: the worker itself readied `p` between two processes (a timer fired
  // at its scheduling point), and it picks `p` next at once; waking a sleeper would only cost a futex call.
  if (waker == nullptr) return false;
  // Its completed runs (the current one is counted in switches() but not yet in cpu_ticks()) averaged at
  // least kStaleNextUs; a process still in its first run counts as short.
  const std::uint64_t runs = waker->switches();
  return runs >= 2 && waker->cpu_ticks() >= (runs - 1) * long_run_ticks_;
}

void HandoffScheduler::on_yield(Process& p, Worker& w) {
  RunQueue& q = slot(w).queue;
  // A process yielding to an empty queue through the worker's loop runs again at once: nothing for a
  // sleeper to take. After a direct switch (WorkerThread::switch_directly: the worker already runs the
  // next process, current_process()) it waits behind that one, and an idle worker could take it.
  const bool alone = q.size_hint() == 0 && current_process() == nullptr;
  q.push_back(&p);
  if (shared() && !alone) idle_->notify_work();
}

Process* HandoffScheduler::pick_local(Worker& w) { return take_local(slot(w), true); }

// `racy`: a queue whose size hint says empty is not locked (a direct switch then goes through the loop,
// whose pick_next looks again under the lock).
Process* HandoffScheduler::take_local(Slot& s, bool racy) {
  if (s.owes_notify) [[unlikely]] {
    // A burst's wake-up (queue_at_home), due now that its waker has switched out.
    s.owes_notify = false;
    idle_->notify_work();
  }
  if (s.tail_began != 0) {
    // The long-running waker of the last hand-off has switched out: how long it kept the next slot waiting.
    const std::uint64_t tail = cycle_clock::now() - s.tail_began;
    s.tail_ewma = (3 * s.tail_ewma + tail) / 4;
    s.tail_began = 0;
  }
  Process* p = nullptr;
  if (s.next.load(std::memory_order_relaxed) != nullptr) {
    if (shared()) {
      p = s.next.exchange(nullptr, std::memory_order_acq_rel);
    } else {
      p = s.next.load(std::memory_order_relaxed);
      s.next.store(nullptr, std::memory_order_relaxed);
    }
    if (p != nullptr && ++s.streak > config::kRunnextStreak) {
      // Fairness: the hand-off waits behind whatever the queue holds.
      s.queue.push_back(p);
      p = nullptr;
    }
  }
  if (p == nullptr) {
    s.streak = 0;
    p = racy ? s.queue.try_pop_front() : s.queue.pop_front();
    // switches() counts the runs; written by the worker that last ran the process, before the queue's lock
    // that handed it here.
    if (p != nullptr && p->switches() == 0) p = start_or_put_off(s, *p);
  }
  if (p != nullptr) {
    s.putting_off = false;
    found(s);
  } else if (s.putting_off) {
    found(s);  // it has work of its own, the put-off start: neither idle nor searching
  }
  return p;
}

Process* HandoffScheduler::start_or_put_off(Slot& s, Process& p) {
  if (s.started_fresh && s.futile_starts == s.futile_at_last_start) {
    // The last process this worker started was not futile: starting pays again.
    s.futile_starts = 0;
    s.backoff_us = 0;
    s.next_turn_at = config::kFutileStarts;
    s.trying_turn = false;  // the order it tried holds
  }
  // One worker has no back-off (nobody else would start the process): its start_after_ns stays 0.
  if (s.futile_starts >= config::kFutileStarts && steady_ns() < s.start_after_ns &&
      others_running(static_cast<std::size_t>(&s - slots_.get()))) {
    s.queue.put_back_fresh(&p);
    add_single_writer(s.put_off_starts);
    // A started process the fairness rule let the fresh one pass runs instead.
    if (Process* q = s.queue.pop_front_started()) return q;
    s.putting_off = true;
    return nullptr;
  }
  note_start(s);
  return &p;
}

void HandoffScheduler::note_start(Slot& s) noexcept {
  s.started_fresh = true;
  s.futile_at_last_start = s.futile_starts;
  s.fresh_began = cycle_clock::now();
}

bool HandoffScheduler::others_running(std::size_t self) const noexcept {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    if (i != self && !idle_->idle(static_cast<unsigned>(i)) &&
        !slots_[i].backing_off.load(std::memory_order_relaxed)) {
      return true;
    }
  }
  return false;
}

void HandoffScheduler::on_first_park(Process& p, Worker& w) {
  if (p.readied_in_last_run()) return;
  Slot& s = slot(w);
  // `p` is the fresh process this worker started last (nothing else ran here since), so fresh_began is its.
  if (cycle_clock::now() - s.fresh_began >= futile_run_ticks_) return;
  add_single_writer(s.futile_first_runs);
  ++s.futile_starts;
  if (s.trying_turn) {
    // The one start tried from the other end parked too: back to the order that was (a second block
    // waiting for the first, whose processes at the far end would hold their stacks until the very end).
    s.queue.turn_fresh_order();
    s.trying_turn = false;
  } else if (s.futile_starts == s.next_turn_at) {
    // The processes started from this end may wait for those at the other (a chain declared against its
    // data's direction): try one start from there. Tried again at twice the count, so a long streak costs
    // a logarithmic number of tries.
    s.queue.turn_fresh_order();
    s.trying_turn = true;
    s.next_turn_at *= 2;
    add_single_writer(s.turned_orders);
  }
  if (!shared() || s.futile_starts < config::kFutileStarts) return;
  s.backoff_us = s.backoff_us == 0 ? config::kStartBackoffFirstUs : std::min(2 * s.backoff_us, config::kStartBackoffMaxUs);
  s.start_after_ns = steady_ns() + std::int64_t{s.backoff_us} * 1000;
}

Process* HandoffScheduler::pick_next(Worker& w) {
  Slot& s = slot(w);
  if (Process* p = take_local(s, false)) return p;
  Process* p = steal(w, s);
  if (p != nullptr) {
    if (p->switches() == 0) note_start(s);  // a stolen fresh process is started without a back-off's check
    found(s);
  }
  return p;
}

void HandoffScheduler::confirm_wake(Slot& s) {
  s.woken = false;
  idle_->woke_to_work(static_cast<unsigned>(&s - slots_.get()));
}

Process* HandoffScheduler::steal(Worker& w, Slot& mine) {
  const std::size_t n = workers_.size();
  if (n < 2) return nullptr;
  // Putting a start off, it has work of its own: no steal attempt (on_idle sleeps a slice instead).
  if (mine.putting_off) return nullptr;
  const std::size_t self = static_cast<std::size_t>(w.index());
  // A worker that ran dry looks at the victims only if some other queue has work, or its nap has just
  // ended (the nap is for looking at next slots). Otherwise there is nothing to take but a stale hand-off,
  // and those are looked for by the searchers that a long-running waker wakes and by napping workers.
  if (!mine.search.searching() && !queued_elsewhere(self) && !idle_->napped(static_cast<unsigned>(self))) {
    return nullptr;
  }
  if (!mine.search.begin(*idle_)) return nullptr;
  const std::size_t first = static_cast<std::size_t>(w.next_random() % n);
  mine.sighted = false;
  if (Process* p = steal_queued(w, mine, first)) return p;
  // No queue gave a process: the hand-offs left waiting in next slots, every victim's.
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t victim = (first + k) % n;
    if (victim == self) continue;
    Process* p = take_stale_next(mine, victim);
    w.note_steal(static_cast<int>(victim), p != nullptr ? 1 : 0);
    if (p != nullptr) {
      add_single_writer(mine.next_steals);
      return p;
    }
  }
  return nullptr;
}

Process* HandoffScheduler::steal_queued(Worker& w, Slot& mine, std::size_t first) {
  const std::size_t self = static_cast<std::size_t>(w.index());
  std::array<Process*, config::kMaxStealBatch> batch;
  const unsigned from = static_cast<unsigned>(first % 64);
  // The summary's words from the one holding `first` on, each word's bits from `first`'s on, then the
  // rest: a random order among the victims that show work, as the plain visit's random start gives.
  for (std::size_t k = 0; k <= queued_words_; ++k) {
    const std::size_t word = (first / 64 + k) % queued_words_;
    std::uint64_t bits = queued_[word].bits.load(std::memory_order_relaxed);
    if (word == self / 64) bits &= ~(std::uint64_t{1} << (self % 64));
    // The first word is visited twice: its bits from `first`'s on, and at the end those before.
    if (k == 0) bits &= ~std::uint64_t{0} << from;
    if (k == queued_words_) bits &= from == 0 ? 0 : ~(~std::uint64_t{0} << from);
    while (bits != 0) {
      const std::size_t victim = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      bits &= bits - 1;
      Slot& v = slots_[victim];
      // The summary may be stale by now: the lock only for a queue whose size still shows work; a steal
      // takes at least one process if the queue has any. Neighbours first (the rule at the top of
      // handoff.hpp): a process last readied by this worker's processes, or that last ran here.
      const int thief = static_cast<int>(self);
      const auto neighbour = [thief](Process* p) {
        return p->policy_data<WokenBy>().worker_plus_one == thief + 1 || p->last_worker() == thief;
      };
      const std::size_t got =
          v.queue.size_hint() > 0
              ? v.queue.pop_preferred_half(batch.data(), batch.size(), config::kNeighbourScan, neighbour)
              : 0;
      w.note_steal(static_cast<int>(victim), got);
      if (got > 0) {
        add_single_writer(mine.stolen_processes, got);
        for (std::size_t i = 1; i < got; ++i) {
          // A fresh process stays fresh in the thief's queue (switches(), ordered by the victim's lock).
          if (batch[i]->switches() == 0) {
            mine.queue.push_back_fresh(batch[i]);
          } else {
            mine.queue.push_back(batch[i]);
          }
        }
        return batch[0];
      }
      add_single_writer(mine.empty_queue_probes);  // emptied since the summary showed it holding work
    }
  }
  return nullptr;
}

Process* HandoffScheduler::take_stale_next(Slot& mine, std::size_t victim) {
  Slot& v = slots_[victim];
  Sighting& seen = mine.seen[victim];
  Process* next = v.next.load(std::memory_order_acquire);
  const std::uint64_t switches = workers_[victim]->counters().context_switches.load(std::memory_order_relaxed);
  if (next == nullptr) return nullptr;
  const std::int64_t now = steady_ns();
  if (next != seen.next || switches != seen.switches) {
    seen = {next, switches, now};
  } else if (now - seen.at_ns >= std::int64_t{config::kStaleNextUs} * 1000) {
    seen = {};
    // Only the exchange decides: the victim may have taken it meanwhile (then `next` is someone else's or
    // null, and the CAS fails).
    return v.next.compare_exchange_strong(next, nullptr, std::memory_order_acq_rel) ? next : nullptr;
  }
  mine.sighted = true;  // seen, not yet stale: worth another look
  return nullptr;
}

bool HandoffScheduler::any_queued() const noexcept {
  if (!shared()) return slots_[0].queue.size_hint() > 0;
  return queued_elsewhere(workers_.size());  // an index past every worker masks no worker's bit
}

bool HandoffScheduler::queued_elsewhere(std::size_t self) const noexcept {
  for (std::size_t k = 0; k < queued_words_; ++k) {
    std::uint64_t bits = queued_[k].bits.load(std::memory_order_relaxed);
    if (k == self / 64) bits &= ~(std::uint64_t{1} << (self % 64));
    if (bits != 0) return true;
  }
  return false;
}

void HandoffScheduler::on_idle(Worker& w) {
  Slot& s = slot(w);
  if (s.putting_off) {
    // One slice of the back-off, then the worker loop asks pick_next again: a started process that came
    // meanwhile runs then, and the put-off start is tried once the back-off ends or nobody else runs.
    s.putting_off = false;
    const std::int64_t left = std::min<std::int64_t>(s.start_after_ns - steady_ns(),
                                                     std::int64_t{config::kStartBackoffSliceUs} * 1000);
    if (left > 0) {
      s.backing_off.store(true, std::memory_order_relaxed);
      std::this_thread::sleep_for(std::chrono::nanoseconds(left));
      s.backing_off.store(false, std::memory_order_relaxed);
    }
    return;
  }
  // Only a sighting is worth another round: a process in a victim's next slot that a second look, kStaleNextUs
  // later, may find stale. Empty queues are left to notify_work, which wakes this worker (spinning on its
  // own word, idle_workers.hpp) when one fills: looking again would only cost a steal attempt.
  if (s.sighted && s.search.keep_looking()) {
    // Exponential back-off between rounds of probes: a searcher that found nothing twice looks less often.
    IdleSearch::pause(32 << std::min(s.search.rounds() - 1, 5u));
    return;
  }
  s.search.sleep(*idle_, static_cast<unsigned>(w.index()), [this] { return any_queued(); });
  s.woken = true;
}

std::vector<std::pair<std::string, double>> HandoffScheduler::stats() const {
  std::uint64_t handoffs = 0, stolen = 0, empty_probes = 0, next_steals = 0, futile = 0, put_off = 0, turned = 0;
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    futile += slots_[i].futile_first_runs.load(std::memory_order_relaxed);
    put_off += slots_[i].put_off_starts.load(std::memory_order_relaxed);
    turned += slots_[i].turned_orders.load(std::memory_order_relaxed);
    handoffs += slots_[i].handoffs.load(std::memory_order_relaxed);
    stolen += slots_[i].stolen_processes.load(std::memory_order_relaxed);
    empty_probes += slots_[i].empty_queue_probes.load(std::memory_order_relaxed);
    next_steals += slots_[i].next_steals.load(std::memory_order_relaxed);
  }
  std::vector<std::pair<std::string, double>> out{{"handoffs", static_cast<double>(handoffs)},
                                                   {"stolen_processes", static_cast<double>(stolen)},
                                                   {"empty_queue_probes", static_cast<double>(empty_probes)},
                                                   {"next_slot_steals", static_cast<double>(next_steals)},
                                                   {"futile_first_runs", static_cast<double>(futile)},
                                                   {"put_off_starts", static_cast<double>(put_off)},
                                                   {"turned_start_orders", static_cast<double>(turned)}};
  if (idle_ != nullptr) idle_->append_counts(out);
  return out;
}

namespace {
const SchedulerRegistration handoff{
    "handoff",
    "the default: work stealing with local hand-off (a woken process runs next on its waker's worker), "
    "steal-half, and idle workers that sleep",
    [] { return std::make_unique<HandoffScheduler>(); }};
}  // namespace

}  // namespace kpn
