#include "runtime/idle_workers.hpp"

#include <algorithm>
#include <cstdlib>

#include "runtime/config.hpp"
#include "runtime/cpu_relax.hpp"
#include "runtime/current.hpp"
#include "runtime/futex.hpp"
#include "runtime/sanitizers.hpp"
#include "runtime/single_writer.hpp"
#include "runtime/steady_time.hpp"
#include "runtime/trace_buffer.hpp"

namespace kpn {

void IdleWorkers::fence() noexcept {
#if defined(KPN_TSAN)
  // ThreadSanitizer does not model fences (GCC refuses them under -fsanitize=thread). A read-modify-write
  // of one shared atomic orders the two sides of the protocol as well: of two such RMWs the later one reads
  // the earlier one's value, so the earlier side's stores happen before the later side's loads.
  tsan_order_.fetch_add(1, std::memory_order_acq_rel);
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

namespace {

// An experiment's override of a spin bound, in microseconds (KPN_IDLE_SPIN_US, KPN_IDLE_SPIN_MAX_US).
std::int64_t spin_bound_ns(const char* variable, unsigned default_us) {
  const char* text = std::getenv(variable);
  long us = text != nullptr ? std::strtol(text, nullptr, 10) : -1;
  if (us < 0) us = static_cast<long>(default_us);
  return static_cast<std::int64_t>(us) * 1000;
}

}  // namespace

IdleWorkers::IdleWorkers(unsigned workers)
    : workers_(workers),
      words_(std::make_unique<Word[]>(workers)),
      spin_floor_ns_(spin_bound_ns("KPN_IDLE_SPIN_US", config::kIdleSpinUs)),
      spin_cap_ns_(std::max(spin_floor_ns_, spin_bound_ns("KPN_IDLE_SPIN_MAX_US", config::kIdleSpinMaxUs))) {
  for (unsigned i = 0; i < workers; ++i) {
    words_[i].spin_ns = spin_floor_ns_;
    words_[i].nap_ns = kNapFloorNs;
  }
}

void IdleWorkers::woke_to_work(unsigned index) noexcept {
  Word& w = words_[index];
  if (w.napped) {
    // The nap found something (a waiting hand-off): the next one is short again.
    w.napped = false;
    w.nap_ns = kNapFloorNs;
  }
  if (!w.unconfirmed) return;
  w.unconfirmed = false;
  const std::int64_t slept = w.last_sleep_ns;
  w.spin_ns = slept < 0 || slept > spin_cap_ns_ ? spin_floor_ns_ : std::clamp(2 * slept, spin_floor_ns_, spin_cap_ns_);
}

void IdleWorkers::notify_work() noexcept {
  for (;;) {
    fence();
    // A searcher that has not yet passed its fence will see the work (header); one that has, has also
    // stopped counting itself as a searcher.
    if (searching_.load(std::memory_order_relaxed) != 0 || sleeping_.load(std::memory_order_relaxed) == 0) return;
    // One wake-up at a time: the woken worker counts as a searcher from here on, so the next notify_work
    // leaves it to it (Go's wakep: CAS nmspinning 0 -> 1).
    unsigned expected = 0;
    if (!searching_.compare_exchange_strong(expected, 1, std::memory_order_seq_cst)) return;
    const unsigned start = next_victim_.fetch_add(1, std::memory_order_relaxed);
    // A spinning sleeper first (its CPU is awake and the wake-up is a CAS), then one on its futex; the
    // watcher last: it waits for a timer, and waking it for work would leave the timer to the others'
    // scheduling points (header). The watcher never spins (it takes the watch on its futex).
    for (unsigned k = 0; k < workers_; ++k) {
      const unsigned i = (start + k) % workers_;
      if (words_[i].state.load(std::memory_order_relaxed) == kSpinning && claim(i, kNotified)) return;
    }
    const int watcher = watcher_.load(std::memory_order_relaxed);
    for (unsigned k = 0; k <= workers_; ++k) {
      unsigned i = (start + k) % workers_;
      if (k == workers_) {
        if (watcher < 0) break;
        i = static_cast<unsigned>(watcher);
      } else if (static_cast<int>(i) == watcher) {
        continue;
      }
      if (claim(i, kNotified)) return;
    }
    // Nobody was asleep after all (each took itself back, having seen work or the stop). While this call
    // counted as a searcher, another notify_work may have trusted it and returned, and a worker may have
    // announced its sleep after the scan passed it: so give the search back and look again.
    searching_.fetch_sub(1, std::memory_order_seq_cst);
  }
}

bool IdleWorkers::notify_worker(unsigned index) noexcept {
  fence();
  Word& w = words_[index];
  const std::uint32_t state = w.state.load(std::memory_order_relaxed);
  if (state == kAwake) return false;  // it looks at its queue at its next scheduling point
  // A spinning worker that watches where this work shows sees it itself, or sees it after its own fence
  // if it stops spinning first (header: watched words): the waker writes none of its lines.
  if (state == kSpinning && w.watched != nullptr) return true;
  // Announced: this call wakes it (not as a searcher: searching_ counts only the searchers notify_work
  // made or try_start_searching admitted), or another waker does, or it takes itself back having seen
  // the work.
  claim(index, kRetimed);
  return true;
}

bool IdleWorkers::take_announcement(Word& w, std::uint32_t to, std::uint32_t& seen) noexcept {
  seen = w.state.load(std::memory_order_relaxed);
  // Only the worker moves Spinning -> Sleeping, so a failed CAS from Spinning reads Sleeping (try again),
  // or the worker's own withdrawal (Awake), or a waker's claim.
  while (seen == kSpinning || seen == kSleeping) {
    if (w.state.compare_exchange_weak(seen, to, std::memory_order_acq_rel, std::memory_order_relaxed)) {
      sleeping_.fetch_sub(1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

bool IdleWorkers::claim(unsigned index, std::uint32_t to) noexcept {
  Word& w = words_[index];
  std::uint32_t seen;
  if (!take_announcement(w, to, seen)) return false;
  w.wakeups.fetch_add(1, std::memory_order_relaxed);
  if (seen == kSleeping) {
    w.futex_wakes.fetch_add(1, std::memory_order_relaxed);
    futex_wake_all(w.state);
  }
  return true;
}

bool IdleWorkers::try_start_searching() noexcept {
  unsigned n = searching_.load(std::memory_order_relaxed);
  do {
    if (searchers_full(n)) return false;
  } while (!searching_.compare_exchange_weak(n, n + 1, std::memory_order_seq_cst, std::memory_order_relaxed));
  return true;
}

void IdleWorkers::stop_searching(bool found_more) noexcept {
  const unsigned before = searching_.fetch_sub(1, std::memory_order_seq_cst);
  if (before == 1 && found_more) notify_work();
}

void IdleWorkers::announce(unsigned index, bool was_searching) noexcept {
  if (was_searching) searching_.fetch_sub(1, std::memory_order_seq_cst);
  words_[index].state.store(kSpinning, std::memory_order_seq_cst);
  sleeping_.fetch_add(1, std::memory_order_seq_cst);
  fence();
}

bool IdleWorkers::withdraw(unsigned index) noexcept {
  Word& w = words_[index];
  std::uint32_t seen;
  if (take_announcement(w, kAwake, seen)) return false;
  // A waker (or wake_all) owns the wake-up; it has already counted the sleeper out.
  w.state.store(kAwake, std::memory_order_relaxed);
  return seen == kNotified;
}

IdleWorkers::SpinEnd IdleWorkers::spin(unsigned index, std::int64_t began_ns) noexcept {
  Word& w = words_[index];
  std::int64_t until = began_ns + w.spin_ns;
  // A timer due within the window ends it (the futex phase then sees the deadline passed and returns to the
  // worker loop, which fires the timer). Read once: a timer added during the spin is added by a running
  // process, whose worker is awake and passes scheduling points.
  if (timers_ != nullptr) until = std::min(until, timers_->load(std::memory_order_relaxed));
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (w.state.load(std::memory_order_acquire) != kSpinning) return SpinEnd::kWoken;
      if (watched_work(index)) return SpinEnd::kWatched;
      cpu_relax();
    }
    if (steady_ns() >= until) return SpinEnd::kTimedOut;
  }
}

bool IdleWorkers::end_on_watched(unsigned index, std::int64_t began_ns, TraceBuffer* trace,
                                 std::int64_t slept_at) noexcept {
  Word& w = words_[index];
  std::uint32_t seen;
  if (take_announcement(w, kAwake, seen)) {
    add_single_writer(w.wakeups);
    seen = kRetimed;  // woken by its word: no searcher
  } else {
    // A waker's claim got here first and owns the wake-up (it counted it); obey it.
    w.state.store(kAwake, std::memory_order_relaxed);
  }
  return woken(w, seen, began_ns, trace, slept_at);
}

void IdleWorkers::note_sleep(TraceBuffer* trace, std::int64_t slept_at) noexcept {
  if (trace != nullptr) trace->add({slept_at, trace->now() - slept_at, 0, 0, nullptr, 0, TraceKind::Sleep, 0});
}

bool IdleWorkers::woken(Word& w, std::uint32_t why, std::int64_t began_ns, TraceBuffer* trace,
                        std::int64_t slept_at) noexcept {
  note_sleep(trace, slept_at);
  const bool stopping = stopping_.load(std::memory_order_acquire);
  // A waker ended the sleep (the stop's wake_all sets Notified too: not a wake-up to learn from).
  w.last_sleep_ns = stopping ? -1 : steady_ns() - began_ns;
  w.unconfirmed = !stopping;
  w.nap_ns = kNapFloorNs;  // a waker ended it: the worker is needed again
  return why == kNotified && !stopping;
}

std::int64_t IdleWorkers::watch_deadline() noexcept {
  std::int64_t d = timers_->load(std::memory_order_relaxed);
  for (;;) {
    watch_deadline_.store(d, std::memory_order_relaxed);
    fence();
    const std::int64_t again = timers_->load(std::memory_order_relaxed);
    // A later value (the timer fired or went) only makes the wait end early; an earlier one is waited for.
    if (again >= d) return d;
    d = again;
  }
}

bool IdleWorkers::wait(unsigned index) noexcept {
  Word& w = words_[index];
  TraceBuffer* const trace = kTracingCompiledIn ? current_trace_buffer() : nullptr;
  const std::int64_t slept_at = trace != nullptr ? trace->now() : 0;
  const std::int64_t began = steady_ns();
  bool watching = false;
  bool timed_out = false;
  bool napped = false;
  const SpinEnd end = spin(index, began);
  if (end == SpinEnd::kWatched) return end_on_watched(index, began, trace, slept_at);
  std::uint32_t spinning = kSpinning;
  if (end == SpinEnd::kTimedOut &&
      w.state.compare_exchange_strong(spinning, kSleeping, std::memory_order_acq_rel, std::memory_order_acquire)) {
    // The worker's store / fence / load against notify_worker's, which left a spinning watcher alone
    // (header: watched words).
    if (w.watched != nullptr) {
      fence();
      if (watched_work(index)) return end_on_watched(index, began, trace, slept_at);
    }
    add_single_writer(w.sleeps);
  }
  while (w.state.load(std::memory_order_acquire) == kSleeping) {
    if (!watching && timers_ != nullptr && timers_->load(std::memory_order_relaxed) != kNoDeadline) {
      int none = -1;
      watching = watcher_.compare_exchange_strong(none, static_cast<int>(index), std::memory_order_seq_cst);
    }
    std::int64_t deadline = watching ? watch_deadline() : kNoDeadline;
    // A nap (header) while another worker is awake: sleeping_ counts this worker too.
    const bool nap = naps_ && sleeping_.load(std::memory_order_relaxed) < workers_;
    if (nap) deadline = std::min(deadline, began + w.nap_ns);
    if (deadline == kNoDeadline) {
      futex_wait(w.state, kSleeping);
    } else if (deadline <= steady_ns()) {
      timed_out = true;
      napped = nap && deadline == began + w.nap_ns;
      break;
    } else {
      futex_wait_until(w.state, kSleeping, deadline);
    }
  }
  if (watching) {
    watch_deadline_.store(kNoDeadline, std::memory_order_relaxed);
    watcher_.store(-1, std::memory_order_seq_cst);
  }
  // A timer is due, or the nap is over: back to the worker loop, whose scheduling point fires the timer
  // and whose policy looks once (unless a waker got here first).
  if (timed_out) {
    note_sleep(trace, slept_at);
    const bool notified = withdraw(index);
    // Only a nap that ended by itself counts as one (a waker's wake-up resets the nap below, next time).
    w.napped = napped && !notified;
    if (notified) w.nap_ns = kNapFloorNs;
    return notified && !stopping_.load(std::memory_order_acquire);
  }
  const std::uint32_t why = w.state.load(std::memory_order_acquire);
  w.state.store(kAwake, std::memory_order_relaxed);
  return woken(w, why, began, trace, slept_at);
}

void IdleWorkers::timer_added(std::int64_t deadline_ns) noexcept {
  fence();
  const int watcher = watcher_.load(std::memory_order_relaxed);
  if (watcher < 0 || watch_deadline_.load(std::memory_order_relaxed) <= deadline_ns) return;
  claim(static_cast<unsigned>(watcher), kRetimed);
  // Otherwise it is awake, or being woken: it reads the earliest deadline again before it next waits.
}

void IdleWorkers::wake_all() noexcept {
  stopping_.store(true, std::memory_order_seq_cst);
  fence();
  for (unsigned i = 0; i < workers_; ++i) claim(i, kNotified);
}

void IdleWorkers::append_counts(std::vector<std::pair<std::string, double>>& out) const {
  out.emplace_back("sleeps", static_cast<double>(sleeps()));
  out.emplace_back("wakeups", static_cast<double>(wakeups()));
  out.emplace_back("futex_wakes", static_cast<double>(futex_wakes()));
}

}  // namespace kpn
