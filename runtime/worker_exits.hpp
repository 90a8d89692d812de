#pragma once
// How the thread in Runtime::run waits for the run's workers to leave, and what it does about a worker that
// does not leave when the run stops.
//
// A worker leaves its loop at the first scheduling point after the run's stop. A process runs until its
// next blocking point, so a worker whose process is blocked in a system call (a write(2) to a stdout that
// nobody drains, a read(2) of a terminal) would never get there, and the stopped run would never end. So,
// from kStuckWorkerGraceMs after the waiting thread sees the stop, it sends every worker thread that has not
// left the call-interrupt signal (call_interrupt.hpp), again every kStuckWorkerNudgeMs: the system call
// fails with EINTR, the process goes on (std::cout sets its failbit, write returns -1) to its next blocking
// point, which unwinds it as the stop does. A worker that is only computing gets the signal and nothing
// happens (the handler does nothing, on the worker's alternate signal stack). Not sent where the program
// has its own action for the signal (call_interrupt_signal_ready), nor to a process in a pure computation,
// which nothing short of its own end can stop.
//
// The protocol, on one futex word (`events_`), so that the waiting thread sleeps without a time-out until
// something happens:
// - a worker's last act is left(i): it sets its flag, then increments the word and wakes the waiter;
// - the run's stop hook (StopState::on_stop, async-signal-safe: an atomic increment and a futex wake) calls
//   stop_requested(), which does the same after the stop flag is set;
// - the waiter reads the word (acquire), then the flags and the stop flag, and sleeps only while the word
//   still holds what it read: an event between its read and its sleep changed the word, so the futex does
//   not sleep (no lost wake-up).
// Once stopping, the waiter sleeps with a deadline (the next signal's time) instead.

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace kpn {

class StopState;

class WorkerExits {
 public:
  explicit WorkerExits(unsigned workers);
  WorkerExits(const WorkerExits&) = delete;
  WorkerExits& operator=(const WorkerExits&) = delete;

  // Worker `index`'s thread leaves the run: the last thing it does.
  void left(unsigned index) noexcept;
  // The run began to stop. Async-signal-safe.
  void stop_requested() noexcept;
  // Returns once every worker has called left(), signalling the stuck ones while `stop` says the run stops
  // (header); then joins `threads` (one per worker, in index order).
  void wait_and_join(std::vector<std::thread>& threads, const StopState& stop);

 private:
  // Sends the signal to each worker thread that has not left; false if the signal is not kpn's to send.
  bool nudge(std::vector<std::thread>& threads);

  std::atomic<std::uint32_t> events_{0};
  std::unique_ptr<std::atomic<bool>[]> left_;
  unsigned workers_;
  std::uint64_t signals_sent_ = 0;  // the waiting thread's alone; logged at debug level
};

}  // namespace kpn
