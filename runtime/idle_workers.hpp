#pragma once
// Idle workers that sleep instead of spinning, for policies that want it (the `handoff` policy; the Nornir
// paper's work stealing keeps its busy-waiting loop, which is what it measures). The mechanism is Go's
// (runtime/proc.go: wakep, findRunnable's "delicate dance" before stopm):
//
//   A worker with nothing to run may become a *searcher* (at most half the workers at once) and look for
//   work to steal. A searcher that finds none stops searching, announces that it sleeps, looks once more
//   at every queue (the policy's `has_work`), and only then waits: first by spinning on its own word for
//   kIdleSpinUs, then on a futex. A policy that makes a process runnable somewhere another worker could
//   take it calls notify_work(): if nobody searches and somebody sleeps, it wakes exactly one sleeper,
//   a spinning one if there is one (a compare-and-swap, no system call), which starts as a searcher.
//
// Why no wake-up is lost. Both sides are a store, a sequentially consistent fence, then a load:
//   waker:   put the process in a queue;          fence; load `searching_` and the sleepers.
//   sleeper: searching_ - 1, state = Sleeping;    fence; look at every queue (has_work) and `stopping`.
// In the single total order of the two fences one comes first, and the side whose fence is second sees
// the other's store. So either the waker sees the sleeper (and wakes it, or sees a searcher that is not
// yet past its own fence and will therefore see the work), or the sleeper sees the work and does not
// sleep. Stopping is the same pattern: the stopper sets the flag, fences, and wakes every sleeper.
//
// A worker's word: Awake -> Spinning (the worker, announcing) -> Sleeping (the worker, by CAS, before its
// futex wait) -> Notified or Retimed (a waker, which owns the wake-up from then on) -> Awake (the worker,
// once woken). A waker may also take Spinning straight to Notified or Retimed; only from Sleeping does it
// call futex_wake, and the worker's futex_wait(Sleeping) returns at once if the word is no longer Sleeping,
// so a wake-up between the worker's CAS and its wait is not lost. Only the worker makes Spinning -> Sleeping:
// a waker that finds Spinning and fails its CAS reads Sleeping and tries again. Spinning and Sleeping both
// count in `sleeping_` (announced), so the waker's store / fence / load argument above covers both.
// Notified makes it a searcher; Retimed (a new earliest timer, below) does not. A worker that changes its
// mind while still Spinning or Sleeping takes itself back with a CAS to Awake; if the CAS fails a waker got
// there first, and the worker goes on as the searcher the waker made it (or not, if Retimed).
//
// Why spin first. A worker that ran out of work is usually needed again within microseconds (the next
// round of a scatter-gather, the next burst of a pipeline), and a futex wake-up costs the waker a system
// call and the sleeper a trip through the kernel's idle loop (tens of microseconds on a VM whose idle CPU
// stops polling). Spinning on its own word costs it no look at another worker's queue (no steal attempt,
// no cache line of anyone else's) and the waker one CAS.
//
// How long to spin (adaptive). At least kIdleSpinUs. A worker whose last sleep was ended by a waker after
// S ns, and which then found a process to run (the policy says so with woke_to_work), spins 2 S next time,
// up to kIdleSpinMaxUs: a worker needed again every S microseconds (a scatter-gather round on many CPUs,
// where the master would otherwise pay a futex wake per worker per round) is caught spinning. A sleep
// longer than the cap, or a wake-up after which the worker found nothing, resets it to kIdleSpinUs. So a
// worker spins long only while its wake-ups keep arriving within the cap and keep bringing work, and an
// idle network costs each worker one short spin per idle spell, as before.
//
// Timers (timer_queue.hpp). A timer must fire at its deadline even when every worker sleeps, and one
// worker waiting for it is enough: the *watcher*. A worker about to wait, seeing a timer, takes the watch
// if nobody holds it (a CAS of `watcher_`) and waits with the earliest deadline as its futex timeout; the
// others wait without one. When the timeout passes, the watcher takes itself back (Sleeping -> Awake) and
// returns to its worker loop, whose scheduling point fires the due timers; sleeping again, it reads the
// next deadline. Why no expiry is lost:
// - a new earliest deadline is published by a running process, so its worker is awake; the inserter and
//   the watcher do the same store / fence / load as above on (the earliest deadline, `watch_deadline_`):
//   either the watcher reads the new deadline before it waits, or timer_added() sees the watcher's later
//   deadline and wakes it (Sleeping -> Retimed, not a searcher) to wait again with the new one;
// - a watcher woken for work (notify_work) gives the watch up, but notify_work wakes the watcher only when
//   no other worker sleeps; then every other worker is awake and passes scheduling points, and the first
//   to sleep takes the watch (a timer may wait for a computing worker's next switch then, like any ready
//   process);
// - a stop wakes the watcher like every sleeper.
//
// Naps (nap_while_others_run, for a policy whose workers may leave a process waiting where only a look
// finds it: handoff's next slot behind a computation, when the hand-off woke nobody because its waker
// usually blocks at once; and for gp, whose idle worker must look now and then to judge whether the load
// has drifted). A worker that goes to wait on its futex while another worker is awake waits at
// most its nap (config::kIdleNapUs at first), then takes itself back (Sleeping -> Awake, as the watcher
// does when its deadline passes) and returns to its worker loop, not as a searcher, to look once. A nap
// that brought nothing doubles the next one, up to config::kIdleNapMaxMs; a sleep a waker ended, or a
// nap after which the worker found work (woke_to_work), resets it. So a waiting hand-off is found within
// about a nap, and a worker idle beside a long computation wakes about log2(kIdleNapMaxMs / kIdleNapUs)
// times and then ten times a second. When every worker sleeps nobody naps: no process runs, so none can
// be waiting in a next slot, and an idle network costs nothing. Naps change nothing in the argument
// above: a napping worker is announced like any sleeper, and a waker's claim ends its nap.
//
// notify_worker(i) wakes one given worker, for policies whose work can only be run by that worker (a
// process pushed into its own queue by another worker, as success-only's victims do). It is the same store /
// fence / load pair with the sleeper's has_work, which must then look at that worker's queue: either the
// sleeper sees the work, or notify_worker sees it Sleeping and wakes it (Sleeping -> Retimed, so it wakes
// as no searcher: searching_ counts only the searchers notify_work made or try_start_searching admitted).
// A woken watcher gives the watch up, as under notify_work; the next worker to sleep takes it.
//
// Watched words (watch(), for a policy whose notify_worker work always shows in one word of the worker's:
// handoff's run queue size). A worker that spins also reads its watched word, and ends its spin itself when
// the word is non-zero: notify_worker then leaves a Spinning worker alone (no CAS on its word and no
// decrement of the sleepers' count by the waker: on many CPUs a scatter-gather master otherwise pays both,
// on two contended lines, for every worker at every round). Why nothing is lost: the waker stores the word,
// fences, loads the state; the worker stores Sleeping (its CAS from Spinning), fences, loads the word
// before it waits on its futex. If the waker read Spinning, its fence came before the worker's, so the
// worker's load sees the word and it takes itself back instead of waiting; if it read Sleeping, it claims
// the worker as before. A worker that sees its word during the spin takes itself back (Spinning -> Awake,
// or it finds a waker's claim and obeys it) and counts the wake-up itself.
//
// A worker that withdraws its sleep (has_work saw a process) while it is no searcher and the searchers'
// cap is full goes back to its loop, where the cap again keeps it from looking: it would circle (announce,
// look, withdraw) until a searcher takes the process. That searcher may be a worker thread that shares this
// CPU and waits for it: with more workers than CPUs under SCHED_FIFO (`chrt -f`), the circling thread is
// never preempted by a thread of its own priority, and the run hangs (a capacity-4 pipeline on 4 workers
// pinned to 2 CPUs did, two runs in three). So such a worker yields its CPU once per turn
// (sched_yield: to a thread of equal priority under SCHED_FIFO, a hint under the default policy). The
// protocol is unchanged: it still withdraws, and no work waits for the yield.
//
// wake_all() is async-signal-safe (atomics and the futex system call only): Runtime::interrupt() calls it
// through StopState from a signal handler.

#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/config.hpp"
#include "runtime/export.hpp"
#include "runtime/sanitizers.hpp"

namespace kpn {

class TraceBuffer;

class KPN_EXPORT IdleWorkers {
 public:
  explicit IdleWorkers(unsigned workers);
  IdleWorkers(const IdleWorkers&) = delete;
  IdleWorkers& operator=(const IdleWorkers&) = delete;

  // Called by a policy after it made a process runnable where another worker could take it. Costs a fence
  // and one or two loads unless it has to wake someone.
  void notify_work() noexcept;

  // Worker `index` was given a process only it can take. Wakes it if it sleeps (not as a searcher); costs a
  // fence and a load otherwise. True if it had announced its sleep (and this call or another waker wakes
  // it): it will look at its queue. False if it is awake (and looks at its queue at its next scheduling
  // point, which may be after a long computation).
  bool notify_worker(unsigned index) noexcept;

  // Worker `index`'s spin also ends when `*word` is non-zero, and notify_worker(index) then leaves it
  // spinning to see its work itself (header: watched words). Every notify_worker(index) must then follow
  // a store that makes `*word` non-zero or a store that another look of the worker sees (has_work), with
  // `*word` non-zero until the work is taken (by the worker, or by one that then runs it). Set before the
  // workers start; null: none.
  void watch(unsigned index, const std::atomic<std::size_t>* word) noexcept { words_[index].watched = word; }

  // Whether worker `index`'s last wait ended as a nap (header) and it has not found work or waited again
  // since. Called by the worker itself only.
  bool napped(unsigned index) const noexcept { return words_[index].napped; }

  // Whether worker `index` has announced its sleep (spinning or on its futex): a racy look, for placement.
  bool idle(unsigned index) const noexcept { return words_[index].state.load(std::memory_order_relaxed) != kAwake; }

  // The calling worker wants to search for work. False (and it should sleep) when half the workers already
  // search: more thieves only contend for the same queues.
  bool try_start_searching() noexcept;
  // A searcher found work. If it was the last searcher and it found more than it can run, another sleeper
  // is woken to look (Go's resetspinning): the work it left behind may be stealable.
  void stop_searching(bool found_more) noexcept;
  unsigned searching() const noexcept { return searching_.load(std::memory_order_relaxed); }

  // Worker `index` (a searcher or not, as told by `was_searching`) has found nothing and sleeps until
  // notified or the run stops, unless `has_work()` (the policy's look at every queue, with relaxed loads
  // at least) is true once it has announced itself, or the run is stopping. Returns true if it woke as a
  // searcher (a waker made it one), false otherwise.
  template <class HasWork>
  bool sleep(unsigned index, bool was_searching, HasWork has_work);
  // The same, for a policy that keeps no searching state of its own (its idle workers take work from one
  // place and never steal: local, gp, global): whether the wake-up made the worker a searcher is kept in its
  // word here, and handed back at its next sleep or by found_work(). Called by the worker itself only.
  template <class HasWork>
  void sleep(unsigned index, HasWork has_work) {
    Word& w = words_[index];
    w.searcher = sleep(index, w.searcher, has_work);
  }
  // Worker `index`, which sleeps through the overload above, has found a process. If a waker had made it a
  // searcher, it stops searching, and wakes the next sleeper when `more_left` (stop_searching). Called by
  // the worker itself only; a busy worker pays one load of its own word.
  void found_work(unsigned index, bool more_left) noexcept {
    Word& w = words_[index];
    if (!w.searcher) [[likely]] return;
    w.searcher = false;
    stop_searching(more_left);
  }

  // The run's earliest timer deadline (TimerQueue::earliest_word), read by a worker about to sleep. Set
  // once, before the workers start.
  void watch_timers(const std::atomic<std::int64_t>* earliest) noexcept { timers_ = earliest; }
  // Workers nap (header) in the run about to start. Set by the policy's start(), before the workers start.
  void nap_while_others_run(bool on) noexcept { naps_ = on; }
  // A timer with `deadline_ns` became the earliest (its store is done). Wakes the watcher if it waits for a
  // later deadline. Costs a fence and a load or two.
  void timer_added(std::int64_t deadline_ns) noexcept;

  // The run stops: every sleeper wakes. Async-signal-safe.
  void wake_all() noexcept;

  // Worker `index`, woken from its last sleep, found a process to run: the wake-up was worth having, and
  // the worker's next idle spin is sized from how long that sleep lasted (the header's adaptive spin). A
  // policy that never calls it keeps every spin at kIdleSpinUs. Called by the worker itself only.
  void woke_to_work(unsigned index) noexcept;

  // Counts for the report: how often workers went to sleep on their futex, how often a waker woke one
  // (a CAS on a spinning one or a futex wake), and how many of those wake-ups were futex system calls.
  std::uint64_t sleeps() const noexcept { return sum(&Word::sleeps); }
  std::uint64_t wakeups() const noexcept { return sum(&Word::wakeups); }
  std::uint64_t futex_wakes() const noexcept { return sum(&Word::futex_wakes); }
  // Appends the three counts above to a policy's Scheduler::stats, as `sleeps`, `wakeups`, `futex_wakes`:
  // every policy that sleeps its workers reports them under the same names.
  void append_counts(std::vector<std::pair<std::string, double>>& out) const;

 private:
  enum : std::uint32_t { kAwake = 0, kSleeping = 1, kNotified = 2, kRetimed = 3, kSpinning = 4 };
  static constexpr std::int64_t kNoDeadline = INT64_MAX;  // TimerQueue::kNone
  // A nap's first and longest length (header), in ns.
  static constexpr std::int64_t kNapFloorNs = std::int64_t{config::kIdleNapUs} * 1000;
  static constexpr std::int64_t kNapCapNs = std::int64_t{config::kIdleNapMaxMs} * 1'000'000;
  struct alignas(64) Word {
    std::atomic<std::uint32_t> state{kAwake};
    // The worker's own (no other thread reads them): how long its next spin lasts, how long its last
    // sleep lasted before a waker ended it (-1 if the stop ended it), and whether a waker's wake-up has
    // yet to be confirmed by woke_to_work (a sleep its timer ended, or one it took back, leaves it unset).
    std::int64_t spin_ns = 0;
    std::int64_t last_sleep_ns = -1;
    bool unconfirmed = false;
    // The worker's own too: its next nap's length, and whether its last wait ended as a nap.
    std::int64_t nap_ns = 0;
    bool napped = false;
    // The worker's own too: whether its last wake-up made it a searcher, for the policies that sleep through
    // sleep(index, has_work).
    bool searcher = false;
    // Set before the workers start (watch()), then read-only.
    const std::atomic<std::size_t>* watched = nullptr;
    // Counts for the report, kept per word rather than in one shared counter: a waker increments the
    // word it has just claimed (its cache line is already the waker's), the worker its own sleeps.
    std::atomic<std::uint64_t> sleeps{0};
    std::atomic<std::uint64_t> wakeups{0};
    std::atomic<std::uint64_t> futex_wakes{0};
  };
  std::uint64_t sum(std::atomic<std::uint64_t> Word::*count) const noexcept {
    std::uint64_t total = 0;
    for (unsigned i = 0; i < workers_; ++i) total += (words_[i].*count).load(std::memory_order_relaxed);
    return total;
  }

  // The sequentially consistent fence of the protocol (header).
  void fence() noexcept;
  // Announces worker `index` as sleeping (after giving up searching); the fence of the protocol follows.
  void announce(unsigned index, bool was_searching) noexcept;
  // Takes the announcement back. True if a waker's notify_work got there first (it is then a searcher).
  bool withdraw(unsigned index) noexcept;
  // Moves an announced word (Spinning or Sleeping) to `to` and counts the sleeper out; false if it was not
  // announced. `seen`: the state it moved from, or the one that was not an announcement.
  bool take_announcement(Word& w, std::uint32_t to, std::uint32_t& seen) noexcept;
  // A waker takes worker `index`'s announcement (Spinning or Sleeping -> `to`) and wakes it if it waits on
  // its futex. False if it was not announced (awake, or another waker got there first).
  bool claim(unsigned index, std::uint32_t to) noexcept;
  // Spins on the worker's word while it is Spinning, for at most the worker's spin_ns from `began_ns` and
  // not past the earliest timer's deadline, and while its watched word (if any) is zero.
  enum class SpinEnd { kWoken, kWatched, kTimedOut };
  SpinEnd spin(unsigned index, std::int64_t began_ns) noexcept;
  // The worker saw its watched word: it takes itself back and returns what wait() returns.
  bool end_on_watched(unsigned index, std::int64_t began_ns, TraceBuffer* trace, std::int64_t slept_at) noexcept;
  // A waker (or the worker's watched word, as kRetimed) ended worker `w`'s wait that began at `began_ns`:
  // the trace's sleep, the adaptive spin's and the nap's bookkeeping; true if woken as a searcher.
  bool woken(Word& w, std::uint32_t why, std::int64_t began_ns, TraceBuffer* trace, std::int64_t slept_at) noexcept;
  // Records the sleep that began at `slept_at` in `trace` (null: not tracing).
  static void note_sleep(TraceBuffer* trace, std::int64_t slept_at) noexcept;
  // Whether worker `index`'s watched word shows work.
  bool watched_work(unsigned index) const noexcept {
    const std::atomic<std::size_t>* word = words_[index].watched;
    return word != nullptr && word->load(std::memory_order_relaxed) != 0;
  }
  // The searchers' cap: at most half the workers search at once (try_start_searching).
  bool searchers_full(unsigned searching) const noexcept { return 2 * searching >= workers_; }
  // Waits until woken, or until the earliest timer's deadline if it holds the watch; returns true if woken
  // as a searcher (by notify_work).
  bool wait(unsigned index) noexcept;
  // The deadline the watcher waits for: the earliest it read after publishing the one it saw (header).
  std::int64_t watch_deadline() noexcept;

  const unsigned workers_;
  std::unique_ptr<Word[]> words_;
  alignas(64) std::atomic<unsigned> searching_{0};
  std::atomic<unsigned> sleeping_{0};
  std::atomic<unsigned> next_victim_{0};  // where the next wake-up starts looking, so sleepers take turns
  std::atomic<bool> stopping_{false};     // set by wake_all; a sleeper never waits after it
  const std::atomic<std::int64_t>* timers_ = nullptr;  // the earliest timer deadline, kNoDeadline if none
  std::atomic<int> watcher_{-1};                     // the worker that waits for it, -1 if none
  std::atomic<std::int64_t> watch_deadline_{kNoDeadline};  // what the watcher waits for
#if defined(KPN_TSAN)
  std::atomic<unsigned> tsan_order_{0};  // fence()'s stand-in under ThreadSanitizer
#endif
  // The adaptive spin's bounds (config::kIdleSpinUs, config::kIdleSpinMaxUs), read once.
  std::int64_t spin_floor_ns_ = 0;
  std::int64_t spin_cap_ns_ = 0;
  bool naps_ = false;  // nap_while_others_run
};

template <class HasWork>
bool IdleWorkers::sleep(unsigned index, bool was_searching, HasWork has_work) {
  Word& w = words_[index];
  // Woken last time, and idle again without having found anything: that wake-up was for nothing, and a
  // long spin would burn the CPU for the next one too.
  if (w.unconfirmed) {
    w.unconfirmed = false;
    w.spin_ns = spin_floor_ns_;
  }
  // Napped, and idle again without having found anything: nap longer.
  if (w.napped) {
    w.napped = false;
    w.nap_ns = std::min(2 * w.nap_ns, kNapCapNs);
  }
  announce(index, was_searching);
  if (has_work() || stopping_.load(std::memory_order_relaxed)) {
    const bool searcher = withdraw(index);
    if (!searcher && searchers_full(searching_.load(std::memory_order_relaxed))) sched_yield();
    return searcher;
  }
  return wait(index);
}

}  // namespace kpn
