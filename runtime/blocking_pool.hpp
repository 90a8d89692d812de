#pragma once
// The kernel threads that run kpn::blocking calls (blocking_call.hpp) while their processes are parked.
//
// Grown on demand: a call finds an idle thread, or starts a new one while the run has fewer than its limit
// (RuntimeOptions::blocking_threads); past the limit, calls queue and wait for a thread to finish one (FIFO).
// No thread is started before the first call, and threads stay (idle) until the run ends, when the pool
// joins them. Blocking calls are waits, not CPU work, so a call should not wait behind another while a
// thread could be started: one idle thread per call in flight is the goal, and the limit only bounds what
// a runaway network can create.
//
// `mutex_` guards the queue and every count below; jobs run without it. A job is the caller's memory (on
// the parked process's stack): the pool touches it until job.run returns and never after, and a job's last
// act is to ready its process, after which the memory may be gone.
//
// Stopping the calls (blocking_call.hpp's interruptible calls). Each interruptible job has its own stop
// source, made by submit; its function gets the source's token. Two things request its stop:
// - the run's stop: a stopping run waits for its calls with wait_idle(true), which requests stop on every
//   interruptible job in flight (queued or running; a job submitted after that starts stopped), then sends
//   the interrupt signal (call_interrupt.hpp) to every thread running one, again every kNudgeMs until none
//   is in flight: a signal that comes just before its thread enters a system call is lost, the next one is
//   not;
// - the cancellation of the process that made the call (stop_calls_of, from cancel.cpp): the same for that
//   process's job alone; the signals are then sent, every kNudgeMs until the job has returned, by the
//   pool's nudger thread, started by the first such cancel of a running call.
// Which thread runs which job (its kind, its stop source, its caller) is in its Slot, under `mutex_`: a
// slot is the pool's memory and lives as long as its thread, so a signal never goes to a thread that has
// ended (threads end only in the destructor, after the last wait_idle), and the slot's copy of the stop
// source stays valid after the job's memory is gone. Stops are requested without `mutex_` (they run the
// function's std::stop_callback functions, which may take locks of their own).

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include <pthread.h>

namespace kpn {

struct BlockingJob {
  // Runs the call and readies whoever waits for it. Must not throw.
  void (*run)(BlockingJob& self) noexcept = nullptr;
  BlockingJob* next = nullptr;  // the queue's link, guarded by the pool's mutex
  // Set by the caller before submit: the call's function takes a stop token, and its thread may be sent
  // the interrupt signal when the run stops or its caller is cancelled.
  bool interruptible = false;
  // Set by the caller before submit: the id of the process that waits for the call (stop_calls_of).
  std::uint64_t caller = 0;
  // Set by submit for an interruptible job: its own stop source and the token the function gets.
  std::stop_source source{std::nostopstate};
  std::stop_token stop;
};

class BlockingPool {
 public:
  explicit BlockingPool(unsigned max_threads) : max_threads_(max_threads) {}
  ~BlockingPool();
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  // Set before the run starts. At least 1.
  void set_max_threads(unsigned n) noexcept { max_threads_ = n; }

  // Queues `job`, starting a thread if none is idle and the limit allows. Throws std::system_error only if
  // no thread exists and none can be started (the job is then not queued).
  void submit(BlockingJob& job);
  // Returns once every submitted job has run to its end (job.run returned). A stopping run calls it after
  // its workers have left and before it unwinds the processes that may still wait for a call, with
  // `stop_calls` true: the interruptible calls in flight are then told to stop (their tokens, and the
  // interrupt signal to their threads until they have returned).
  void wait_idle(bool stop_calls = false);
  // Requests stop on the interruptible jobs in flight (queued or running) whose caller is in `callers`
  // (sorted), and has each thread running one sent the interrupt signal until it returns: those processes
  // were cancelled. A job that is not interruptible is left to return by itself. Runs the jobs' stop
  // callbacks on this thread.
  void stop_calls_of(const std::vector<std::uint64_t>& callers);

  // For the report, read after wait_idle: threads started, and calls submitted, in this run.
  unsigned threads_started() const;
  std::uint64_t calls() const;

 private:
  struct Slot {
    pthread_t thread{};
    // The job this thread runs, all under mutex_: whether it is interruptible, a copy of its stop source,
    // its caller, and whether the nudger signals this thread (its caller was cancelled).
    bool running_interruptible = false;
    std::stop_source stop{std::nostopstate};
    std::uint64_t caller = 0;
    bool nudge = false;
  };
  void thread_main(Slot& slot);
  // Sends the interrupt signal to the threads running interruptible jobs (`only_nudged`: those whose slot
  // says nudge). Under mutex_; true if it signalled any.
  bool nudge_interruptible_locked(bool only_nudged) const;
  // The nudger thread's loop (stop_calls_of).
  void nudger_main();
  // Requests stop on every source in `sources`, without mutex_.
  static void request_stops(std::vector<std::stop_source>& sources) noexcept;
  static constexpr int kNudgeMs = 10;

  mutable std::mutex mutex_;
  std::condition_variable work_;  // a job was queued, or the pool is shutting down
  std::condition_variable idle_;  // in_flight_ reached 0
  unsigned max_threads_;
  BlockingJob* head_ = nullptr;  // queued jobs, oldest first
  BlockingJob* tail_ = nullptr;
  unsigned queued_ = 0;
  unsigned waiting_threads_ = 0;  // threads waiting on `work_`
  unsigned in_flight_ = 0;        // submitted and not yet finished (queued or running)
  std::uint64_t calls_ = 0;
  bool shutdown_ = false;
  bool stopping_ = false;  // wait_idle(true) has begun: a job submitted from now on starts stopped
  std::vector<std::unique_ptr<Slot>> slots_;  // one per thread, same order; see "Stopping the calls"
  std::vector<std::thread> threads_;
  std::condition_variable nudge_;  // a slot's nudge was set, or the pool is shutting down
  std::thread nudger_;             // started by the first stop_calls_of that finds its job running
};

}  // namespace kpn
