#pragma once
// One worker's part in IdleWorkers' searching protocol (idle_workers.hpp), for a policy that keeps one of
// these per worker: whether the worker is a searcher, since when, and how many fruitless rounds it has made.
// Only its own worker touches it (plain fields, no synchronisation: the protocol's shared state is in
// IdleWorkers).
//
// The cycle, as every sleeping policy runs it:
//   pick_next found nothing locally -> begin() (a searcher, unless half the workers already search: then
//   it does not look) -> a steal round -> found a process: found() (a searcher stops searching, and wakes
//   another sleeper if it left work queued behind it: IdleWorkers::stop_searching);
//   found nothing: the worker loop calls on_idle -> keep_looking() while the search window is open (at
//   least kMinRounds rounds and config::kSearchUs, a short pause between rounds) -> sleep() once it closes.
// A worker woken by a waker starts as a searcher (sleep() returns so), with a fresh window.

#include <cstdint>

#include "runtime/config.hpp"
#include "runtime/cpu_relax.hpp"
#include "runtime/idle_workers.hpp"
#include "runtime/steady_time.hpp"

namespace kpn {

class IdleSearch {
 public:
  // Fruitless rounds a searcher makes at least, however quickly, before it may sleep.
  static constexpr unsigned kMinRounds = 4;

  bool searching() const noexcept { return searching_; }
  // Fruitless rounds since the worker last found a process or slept (1 after the first on_idle).
  unsigned rounds() const noexcept { return rounds_; }

  // Before a steal round. True if the worker is, or has just become, a searcher; false when the cap on
  // searchers (half the workers) says it should not look.
  bool begin(IdleWorkers& idle) noexcept {
    if (searching_) return true;
    if (!idle.try_start_searching()) return false;
    searching_ = true;
    began_ns_ = steady_ns();
    return true;
  }

  // The worker found a process to run (its own or stolen). A searcher stops searching and tells
  // IdleWorkers::stop_searching whether its queue still holds work: `more_queued()`, called only then, so
  // that a switch that finds no searcher (every switch of a busy worker) pays no look at the queue. Inline.
  template <class MoreQueued>
  void found(IdleWorkers& idle, MoreQueued more_queued) noexcept {
    rounds_ = 0;
    if (searching_) [[unlikely]] {
      searching_ = false;
      idle.stop_searching(more_queued());
    }
  }

  // on_idle, after a fruitless round: counts it, and says whether the search window is still open (the
  // worker searches, and has made fewer than kMinRounds rounds or searched less than kSearchUs). While it is,
  // the caller pauses briefly and looks again; once it closes, the caller calls sleep().
  bool keep_looking() noexcept {
    return searching_ &&
           (++rounds_ < kMinRounds || steady_ns() - began_ns_ < std::int64_t{config::kSearchUs} * 1000);
  }
  // The pause between two rounds of a searcher, in cpu_relax() calls.
  static void pause(int spins = 32) noexcept {
    for (int i = 0; i < spins; ++i) cpu_relax();
  }

  // The window closed, or the worker was no searcher: it sleeps (IdleWorkers::sleep, with the policy's look
  // at every queue it could take from), and wakes as a searcher with a fresh window if its waker made it one.
  template <class HasWork>
  void sleep(IdleWorkers& idle, unsigned worker, HasWork has_work) {
    rounds_ = 0;
    searching_ = idle.sleep(worker, searching_, has_work);
    if (searching_) began_ns_ = steady_ns();
  }

 private:
  std::int64_t began_ns_ = 0;  // steady_ns() when the current search began
  unsigned rounds_ = 0;
  bool searching_ = false;
};

}  // namespace kpn
