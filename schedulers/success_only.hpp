#pragma once
// success-only: HabaneroUPC++'s SuccessOnlyWS (seed 002) on kpn's workers. A thief never takes a victim's
// lock to find its queue empty: it registers a steal request at victims that show load and waits; each
// victim pushes work to its registered thieves at its next scheduling point. So no steal attempt fails.
//
//   Queues are FIFO, per worker. Spawned, yielding and unblocked processes go to the back of the spawner's,
//   the yielder's and the waker's queue (a process unblocked from outside the workers, by the deadlock
//   monitor, to the worker it last ran on); the initial network is dealt round-robin. Only a queue's owner
//   pops from it; other workers only push into it (a victim serving it, or an outside unblock).
//   Requests. A worker whose queue is empty looks at every other queue's size without a lock and, at each
//   one that shows load and does not hold its request yet, sets its bit in that victim's request set (an
//   atomic bitset, one bit per thief). The bits are the thief's memory of whom it asked as well as the
//   victim's memory of who asked: a thief never asks a victim twice while its request stands. A thief that
//   asks a victim which has asked it counts a cyclic request (the paper's steal cycle; harmless: each side
//   serves from what it has).
//   Pushes. At its scheduling points (pick_next after it took its own next process; on_spawn, on_yield and
//   on_unblock after it queued one) a victim that has requests serves them from a rotating start: while its
//   queue holds processes it claims a thief's bit (fetch_and; if the thief withdrew meanwhile there is nothing
//   to claim), moves the older half of its queue, rounded up, up to config::kMaxStealBatch, to the back of
//   the thief's queue and wakes that thief (IdleWorkers::notify_worker). A victim with an empty queue leaves
//   its requests standing and serves them when it next has work.
//   Withdrawal. A thief that has work again (its own queue gave it a process) clears its bit at every victim
//   it still has a request with, so that no victim later feeds a busy worker (the paper forgets only the
//   victim that answered; forgetting all keeps a stale request from moving work away from a busy victim).
//
// Idle workers sleep (runtime/idle_workers.hpp). After registering, a thief spins for config::kSearchUs as a
// searcher if IdleWorkers admits it, then sleeps; its has_work is "my queue has work, or some queue shows load
// and does not hold my request". Why a sleeping thief is not left waiting while work exists:
// - A worker sleeps only with its own queue empty, and a queue gains processes only from its owner (awake)
//   or from another worker that then calls notify_worker(owner) (a victim serving, an outside unblock). So
//   every queued process has an owner that is awake or being woken, and that owner runs it or serves it.
// - A request at a victim that later drains its queue and sleeps stands, unserved; the thief is not waiting on
//   it alone: any process made runnable later is queued by an awake worker, which calls notify_work(), and a
//   woken sleeper (searcher) registers at that new load; a thief whose has_work sees load it has not asked
//   for does not sleep. The owner of the load serves the request at its next scheduling point.
// - Both hand-offs are IdleWorkers' store / fence / load pairs: the pusher's push, then notify_worker's fence
//   and look at the thief's word; the thief's announcement, then its fence and has_work's look at its queue.
// The price of the design: a victim inside a long computation answers only at its next scheduling point, and
// meanwhile its queued processes wait (a thief in Nornir's policies would have taken them).
//
// Who touches what: a slot's queue has its own lock; its request bits are atomics set by thieves and
// cleared by the victim (serving) or the thief (withdrawing). Everything else in a slot belongs to its worker,
// except the counters, which others read only after the run.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/idle_search.hpp"
#include "runtime/scheduler.hpp"
#include "schedulers/run_queue.hpp"

namespace kpn {

class KPN_EXPORT SuccessOnlyScheduler final : public Scheduler {
 public:
  std::string_view name() const noexcept override { return "success-only"; }
  void start(SchedulerContext& context) override;
  void on_spawn(Process& p, Worker* spawner) override;
  void on_unblock(Process& p, Worker* waker) override;
  void on_yield(Process& p, Worker& w) override;
  Process* pick_next(Worker& w) override;
  void on_idle(Worker& w) override;
  std::vector<std::pair<std::string, double>> stats() const override;

 private:
  struct alignas(64) Slot {
    RunQueue queue;
    // The worker's own.
    IdleSearch search;  // the worker's own
    unsigned asked = 0;       // requests it registered since it last had work (0: nothing to withdraw)
    std::size_t serve_from = 0;  // the thief its next round of pushes starts with
    // Written by the worker (relaxed, no contention), summed after the run.
    std::atomic<std::uint64_t> requests{0};
    std::atomic<std::uint64_t> cyclic_requests{0};
    std::atomic<std::uint64_t> withdrawals{0};
    std::atomic<std::uint64_t> pushes{0};
    std::atomic<std::uint64_t> pushed_processes{0};
  };

  Slot& slot(const Worker& w) noexcept;
  bool shared() const noexcept { return workers_ > 1; }
  // Thief `t`'s request bit at victim `v`.
  std::atomic<std::uint64_t>& request_word(std::size_t v, std::size_t t) noexcept {
    return requests_[v * words_ + t / 64];
  }
  static std::uint64_t bit(std::size_t t) noexcept { return std::uint64_t{1} << (t % 64); }
  bool asked(std::size_t v, std::size_t t) noexcept {
    return (request_word(v, t).load(std::memory_order_relaxed) & bit(t)) != 0;
  }
  // Registers `w` at every loaded victim that does not hold its request yet.
  void ask(Worker& w, Slot& mine);
  void withdraw(std::size_t thief, Slot& mine);
  // Serves the requests standing at `w` from its queue.
  void serve(std::size_t victim, Slot& mine);
  // `w` queued a process in its own queue while running: serve, and let a sleeper come for the rest.
  void after_local_push(Worker& w);
  bool has_work(std::size_t thief) noexcept;

  std::size_t workers_ = 0;
  std::size_t words_ = 0;  // request words per victim
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> requests_;  // workers_ * words_: victim-major
  IdleWorkers* idle_ = nullptr;
  std::size_t next_initial_ = 0;  // round-robin cursor; used before the workers start only
};

}  // namespace kpn
