#pragma once
// handoff: kpn's default policy. Work stealing built for process networks, where a write usually readies
// the reader and a read usually readies the writer (what Go's scheduler does for goroutines, runtime/proc.go):
//
//   Hand-offs stay local. A process unblocked by the process running on worker w goes into w's *next*
//   slot and runs as soon as the current process blocks, on the same CPU and with the message still in
//   its cache. A process displaced from the slot goes to the back of w's queue. After kRunnextStreak
//   hand-offs in a row the slot's process goes behind the queue instead, so two processes that keep
//   waking each other cannot starve the rest of the queue.
//   Where both workers are busy, a process stays home. One woken from another worker goes to the waker's
//   next slot only when its home has run out of work: a home with a process queued or in its next slot,
//   or running one while the waker's worker has a queue of its own, gets it queued (a pipeline's boundary
//   stage stays with the stages before it). A waker whose queue is empty runs dry when it blocks, so it
//   takes the process (a scatter-gather master woken by a round's last reply).
//   Gatherers wait their turn. A process whose last run readied nobody (it took what it waited for and
//   blocked again: a scatter-gather master collecting replies, a stage behind a roomy channel) goes behind
//   its worker's queue instead of into the next slot, when it last ran on this worker: it then takes in
//   one run what the queued processes produce, instead of one message per switch. The runtime keeps the
//   fact (Process::readied_in_last_run).
//   A process readied in a burst (its waker's next slot is already taken) goes home to the worker it last
//   ran on, and one displaced from the slot goes home if that worker is idle: an idle home is woken for it
//   and takes it from its own queue without a steal (a scatter-gather master's workers stay where they ran
//   last round); a spinning home sees its queue fill by itself (IdleWorkers::watch). For a busy home an
//   idle worker is woken to search once per burst, at the waker's next switch.
//   Queues are FIFO. Spawned and yielding processes go to the back of their worker's queue. A process
//   unblocked from outside the run's workers (the deadlock monitor growing a channel) goes to the queue of
//   the worker it last ran on.
//   Started processes first. A queue hands out the processes that have run before those that have never
//   run (fresh ones: spawned, the initial network), every kFreshAfter-th pop excepted (RunQueue): a worker
//   resumes what it started before it starts more, and a thief takes started ones first too.
//   Futile starts back off. A fresh process that parks in its first run having readied nobody, within
//   kFutileRunUs of its start (a chain's stage whose value has not come yet), bought nothing by starting but
//   a stack page, and its worker went on to start the next, which did the same: on two workers the second
//   half of a chain of 100,000 all started and parked before the first half's value reached it (50,160
//   stacks, 0.34 s, against 16 stacks and 0.09 s on one worker). So after kFutileStarts such starts in a row,
//   a worker puts off its next start while another worker is awake and not itself putting starts off, for
//   kStartBackoffFirstUs, doubling at each further futile start up to kStartBackoffMaxUs; a start that is not
//   futile (the process finished, yielded, readied someone, or parked later) ends the back-off. Meanwhile the
//   worker runs what it has that has run before (its next slot, its queue's started processes) and otherwise
//   sleeps in slices of kStartBackoffSliceUs, looking again between them; it steals nothing. Another worker
//   that runs dry steals its fresh processes as usual, and starts them if its own starts are not futile (a
//   chain's value reaches them in order). Why nothing waits forever: a start is put off only while some other
//   worker is awake and not putting off starts, and never for longer than kStartBackoffMaxUs before one more
//   start is tried; a worker with nothing else to do that sees no such worker starts at once. Put-off
//   processes stay queued, so they count as runnable for termination and deadlock detection (quiescence.hpp).
//   Futile starts turn the start order around. After kFutileStarts futile starts in a row, on any number of
//   workers, a worker tries its next start from the other end of its fresh processes
//   (RunQueue::turn_fresh_order): the processes of a chain declared against the direction of its data (the
//   sink first) each wait for the one declared after them, so started in declaration order all of them
//   parked, on one worker too (100,336 stacks for a chain of 100,000); started from the back, each finds its
//   value there. If that start is not futile the order stays turned (until another streak turns it back);
//   if it is, the worker returns to the order it had, and tries again when the streak has doubled (16, 32,
//   ...). So a worker whose starts park from either end (a second block waiting for the first, whose far end
//   gets its values last of all) holds a logarithmic number of extra stacks, not one from the far end for
//   every other start. Thieves still take the front of a victim's fresh processes.
//   The initial network is dealt in consecutive blocks of its declaration order, not round-robin.
//   Processes declared one after another usually talk to each other (a pipeline's or a chain's stages), so
//   a block keeps them on one worker with one crossing channel per boundary. Dealt round-robin, every
//   channel of a chain crossed: each worker started the processes dealt to it, nearly all of them parked at
//   once on an empty input and held a stack page, and a value woken at a busy home waited behind processes
//   that had never run. A chain of 100,000 on two workers mapped 100,336 stacks and took 0.65 s; in blocks
//   it maps 50,160 and takes 0.34 s (docs/performance-log.md, session 54). The second block still parked,
//   since a worker cannot tell a process that will wait for a value from one that has work to do before it
//   starts it; futile starts (above) are what stop it.
//   Thieves take half. An idle worker becomes a searcher (at most half the workers search at once) and
//   visits, in a random order, only the workers whose queues the summary below shows holding a process: it
//   looks at such a victim's queue size without a lock and locks it only if it still has work, then takes
//   half of it: its neighbours first, else the older half. A worker whose queue the summary shows empty
//   is not visited for its queue at all (visiting every worker from a random one on, a thief on 16
//   workers looked at several empty queues for every one it stole from: most of its steal attempts).
//   Only when no queue gave it a process does it look at every other worker's next slot. It takes a
//   victim's next slot only when it has seen the same process there twice, kStaleNextUs apart, with no
//   context switch on the victim in between (the victim is inside a long computation, so the hand-off
//   would wait for it).
//   Neighbours first. Among a victim's kNeighbourScan oldest queued processes, a thief takes those that
//   belong with it: last readied by a process on the thief's worker, or last run there (a stream's
//   neighbour). A pipeline split over two workers then moves the boundary between its two parts by a
//   stage when one side runs dry, instead of losing a stage from the middle of the other side, whose two
//   channels would both cross CPUs until it moved back. Scatter-gather's bursts, whose processes the
//   master's worker readied, are taken by halves as before.
//   A worker that runs dry looks first at a summary of which queues hold a process (one word per 64
//   workers, kept by the queues under their locks). If no other queue does, it looks at no victim and
//   goes to sleep: there is nothing to steal but a hand-off left waiting in a next slot, and those are
//   looked for by the searchers that notify_work wakes (a long-running waker's hand-off wakes one) and by
//   workers whose nap has just ended (IdleWorkers::napped). The summary is also the sleepers' last look
//   (has_work). So an idle spell at a barrier costs no steal attempt and touches one line, not one per
//   worker.
//   Idle workers sleep. A searcher whose round found nothing sleeps at once: it spins on its own word for
//   kIdleSpinUs (longer, up to kIdleSpinMaxUs, while its wake-ups keep bringing work: found() tells
//   IdleWorkers so), then waits on a futex; only a round that saw a process in a victim's next slot is
//   repeated (for up to kSearchUs), to see whether it is stale. Whoever makes a process runnable where a
//   sleeper could take it wakes one if nobody searches, a spinning one first (the protocol and its
//   argument are in runtime/idle_workers.hpp): an idle worker costs one steal attempt per spell, not one
//   per microsecond. A hand-off into the next slot wakes nobody when the waker
//   is a process that blocks again within microseconds (its completed runs average under kStaleNextUs),
//   or when long-running wakers on this worker have lately switched out within kStaleNextUs of a
//   hand-off (a scatter-gather worker replying, then reading its next request): the worker will run the
//   process itself, and a wake-up would only cost the waker a system call. An idle CPU costs nothing.
//
// Who touches what: a slot's queue has its own lock. A slot's `next` is written by its worker (it is the
// only one that readies processes into it) and taken with an atomic exchange by its worker or a thief, so
// each process in it is handed out exactly once. Everything else in a slot belongs to its worker alone,
// except the counters, which others read only after the run.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/idle_search.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/worker.hpp"
#include "schedulers/run_queue.hpp"

namespace kpn {

class KPN_EXPORT HandoffScheduler final : public Scheduler {
 public:
  std::string_view name() const noexcept override { return "handoff"; }
  void start(SchedulerContext& context) override;
  void on_network_size(std::size_t processes) override;
  void on_spawn(Process& p, Worker* spawner) override;
  void on_unblock(Process& p, Worker* waker) override;
  void on_yield(Process& p, Worker& w) override;
  Process* pick_next(Worker& w) override;
  Process* pick_local(Worker& w) override;
  void on_idle(Worker& w) override;
  void on_first_park(Process& p, Worker& w) override;
  std::vector<std::pair<std::string, double>> stats() const override;

 private:
  struct Sighting {  // a thief's last look at a victim's next slot
    Process* next = nullptr;
    std::uint64_t switches = 0;
    std::int64_t at_ns = 0;  // steady_clock
  };
  struct alignas(64) Slot {
    RunQueue queue;
    // On a line of its own with the worker's fields below: the queue's size word, which a spinning sleeper
    // watches and thieves read, must not share a line with the slot its worker writes at every hand-off.
    alignas(64) std::atomic<Process*> next{nullptr};
    // The worker's own.
    unsigned streak = 0;        // hand-offs run in a row
    IdleSearch search;
    // How long a long-running waker on this worker went on after a hand-off before it switched out
    // (cycle_clock ticks, moving average), and when the current such hand-off began (0: none).
    std::uint64_t tail_ewma = 0;
    std::uint64_t tail_began = 0;
    bool sighted = false;  // its last search round saw a process in a victim's next slot (not yet stale)
    bool woken = false;    // it slept, and has not run anything since (IdleWorkers::woke_to_work)
    bool owes_notify = false;  // a burst pushed to a busy home owes a notify_work at the next switch
    std::vector<Sighting> seen;  // per victim
    // Futile starts (the rule at the top): how many processes this worker started in a row that parked in
    // their first run having readied nobody, within kFutileRunUs; that count when it last started a fresh
    // process (unchanged at the next start: that one was not futile); the back-off's length and end
    // (steady_ns); whether its last take_local put a start off (on_idle then sleeps a slice).
    unsigned futile_starts = 0;
    unsigned futile_at_last_start = 0;
    bool started_fresh = false;
    std::uint64_t fresh_began = 0;  // cycle_clock ticks when it last started a fresh process
    bool putting_off = false;
    unsigned backoff_us = 0;
    std::int64_t start_after_ns = 0;
    // The turn of the start order (the rule at the top): the futile count at which the next start is tried
    // from the other end of the fresh processes, and whether the last start was such a try.
    unsigned next_turn_at = config::kFutileStarts;
    bool trying_turn = false;
    // Set while the worker sleeps a slice of a back-off; read by other workers (others_running).
    std::atomic<bool> backing_off{false};
    // Written by the worker (relaxed, no contention), summed after the run.
    std::atomic<std::uint64_t> handoffs{0};
    std::atomic<std::uint64_t> stolen_processes{0};
    std::atomic<std::uint64_t> empty_queue_probes{0};  // victims' queues it looked at and found empty
    std::atomic<std::uint64_t> next_steals{0};
    std::atomic<std::uint64_t> futile_first_runs{0};
    std::atomic<std::uint64_t> put_off_starts{0};
    std::atomic<std::uint64_t> turned_orders{0};
  };

  Slot& slot(const Worker& w) noexcept { return slots_[static_cast<std::size_t>(w.index())]; }
  // More than one worker: thieves exist, and other workers may sleep.
  bool shared() const noexcept { return workers_.size() > 1; }
  Process* steal(Worker& w, Slot& mine);
  // The queues the summary (queued_) shows work in, in a random order from victim `first` on: the older
  // half of the first that still has some. Visits no worker whose queue the summary shows empty.
  Process* steal_queued(Worker& w, Slot& mine, std::size_t first);
  // The next slot, then the queue's front (pick_next's first look, and pick_local).
  Process* take_local(Slot& s, bool racy);
  // `w` found a process (locally or by stealing): it is no longer idle, nor searching. Inline, because a
  // worker that runs a queue of processes calls it at every switch, and only a worker that was idle has
  // anything to do (confirm_wake, IdleSearch::found).
  void found(Slot& s) {
    if (s.woken) [[unlikely]] confirm_wake(s);
    s.search.found(*idle_, [&s] { return s.queue.size_hint() > 0; });
  }
  // The worker's last sleep brought it work (IdleWorkers::woke_to_work).
  [[gnu::noinline]] void confirm_wake(Slot& s);
  // Queues a woken process whose last run readied nobody behind the waker's queue (on_unblock's cold path).
  [[gnu::noinline]] void queue_gatherer(Slot& s, Process& p);
  // Queues `p` at `home` (another worker than the waker's, whose slot is `s`) and wakes that worker if it
  // sleeps, else any at the waker's next switch.
  void queue_at_home(Slot& s, Process& p, std::size_t home);
  // A victim's next slot, if it has sat there since this thief's last look with no switch on the victim.
  Process* take_stale_next(Slot& mine, std::size_t victim);
  // Whether any queue, or any queue but worker `self`'s, holds a process: one load per 64 workers of the
  // summary (queued_), not a look at each worker's queue.
  bool any_queued() const noexcept;
  bool queued_elsewhere(std::size_t self) const noexcept;
  // A fresh process `p` that take_local popped: `p` itself if the worker may start it now, else (the start
  // put off and `p` queued again) a started process from the queue, or nullptr.
  [[gnu::noinline]] Process* start_or_put_off(Slot& s, Process& p);
  // The worker starts a fresh process now (its own or a stolen one): what the next start or first park
  // compares with.
  void note_start(Slot& s) noexcept;
  // Whether a worker other than `self` is awake and not sleeping a slice of a back-off.
  bool others_running(std::size_t self) const noexcept;
  // Whether the process that is waking another has, on average, run long between switches.
  bool runs_long(const Process* waker) const noexcept;

  // Which queues hold a process: bit i % 64 of word i / 64 for worker i, kept exact by each queue under its
  // lock (RunQueue::track_occupancy). Its own lines: every push that fills a queue, and every pop that
  // empties one, writes it.
  struct alignas(64) QueuedWord {
    std::atomic<std::uint64_t> bits{0};
  };

  std::vector<Worker*> workers_;
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<QueuedWord[]> queued_;
  std::size_t queued_words_ = 0;
  IdleWorkers* idle_ = nullptr;
  std::uint64_t long_run_ticks_ = 0;  // kStaleNextUs in cycle_clock ticks
  std::uint64_t futile_run_ticks_ = 0;  // kFutileRunUs in cycle_clock ticks
  // The initial network's deal (on_spawn with no spawner), before the workers start: how many processes
  // it has (on_network_size) and how many have been dealt.
  std::size_t initial_processes_ = 0;
  std::size_t next_initial_ = 0;
};

}  // namespace kpn
