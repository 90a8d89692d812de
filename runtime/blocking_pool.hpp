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

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace kpn {

struct BlockingJob {
  // Runs the call and readies whoever waits for it. Must not throw.
  void (*run)(BlockingJob& self) noexcept = nullptr;
  BlockingJob* next = nullptr;  // the queue's link, guarded by the pool's mutex
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
  // its workers have left and before it unwinds the processes that may still wait for a call.
  void wait_idle();

  // For the report, read after wait_idle: threads started, and calls submitted, in this run.
  unsigned threads_started() const;
  std::uint64_t calls() const;

 private:
  void thread_main();

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
  std::vector<std::thread> threads_;
};

}  // namespace kpn
