#include "runtime/blocking_pool.hpp"

#include <chrono>
#include <csignal>

#include "runtime/call_interrupt.hpp"

namespace kpn {

BlockingPool::~BlockingPool() {
  {
    std::lock_guard g(mutex_);
    shutdown_ = true;
  }
  work_.notify_all();
  for (auto& t : threads_) t.join();
}

void BlockingPool::submit(BlockingJob& job) {
  std::unique_lock g(mutex_);
  // Every waiting thread will take one queued job; start another only if this job would have to wait.
  if (waiting_threads_ <= queued_ && threads_.size() < max_threads_) {
    try {
      slots_.reserve(slots_.size() + 1);
      threads_.reserve(threads_.size() + 1);
      auto slot = std::make_unique<Slot>();
      Slot& s = *slot;
      threads_.emplace_back([this, &s] { thread_main(s); });
      // The thread waits for mutex_ (held here) before it looks at its slot.
      s.thread = threads_.back().native_handle();
      slots_.push_back(std::move(slot));
    } catch (...) {
      // Out of threads or memory: queue behind the existing threads, if there are any.
      if (threads_.empty()) throw;
    }
  }
  if (job.interruptible) {
    if (!stop_.stop_possible()) stop_ = std::stop_source();  // may throw std::bad_alloc: nothing queued yet
    job.stop = stop_.get_token();
  }
  job.next = nullptr;
  if (tail_ != nullptr) {
    tail_->next = &job;
  } else {
    head_ = &job;
  }
  tail_ = &job;
  ++queued_;
  ++in_flight_;
  ++calls_;
  g.unlock();
  work_.notify_one();
}

void BlockingPool::thread_main(Slot& slot) {
  // The interrupt signal must reach this thread even if the program blocked it in the thread that runs
  // the network (threads inherit the mask); kpn sends it only to a thread running an interruptible call.
  sigset_t interrupt;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, kCallInterruptSignal);
  pthread_sigmask(SIG_UNBLOCK, &interrupt, nullptr);
  std::unique_lock g(mutex_);
  for (;;) {
    ++waiting_threads_;
    work_.wait(g, [this] { return head_ != nullptr || shutdown_; });
    --waiting_threads_;
    if (head_ == nullptr) return;  // shutting down, nothing left
    BlockingJob* job = head_;
    head_ = job->next;
    if (head_ == nullptr) tail_ = nullptr;
    --queued_;
    slot.running_interruptible = job->interruptible;
    g.unlock();
    job->run(*job);  // `job` may be gone once this returns
    g.lock();
    slot.running_interruptible = false;
    if (--in_flight_ == 0) idle_.notify_all();
  }
}

void BlockingPool::wait_idle(bool stop_calls) {
  std::unique_lock g(mutex_);
  const auto idle = [this] { return in_flight_ == 0; };
  if (!stop_calls || !stop_.stop_possible()) {
    idle_.wait(g, idle);
    return;
  }
  // Stop callbacks (std::stop_callback in a call's function) run here, on the run's thread, without the
  // pool's lock: a callback may take its own locks or wait a little.
  std::stop_source stop = stop_;
  g.unlock();
  stop.request_stop();
  g.lock();
  while (!idle()) {
    nudge_interruptible_locked();
    idle_.wait_for(g, std::chrono::milliseconds(kNudgeMs), idle);
  }
}

void BlockingPool::nudge_interruptible_locked() const {
  bool ready = false;
  for (const auto& slot : slots_) {
    if (!slot->running_interruptible) continue;
    if (!ready && !call_interrupt_signal_ready()) return;  // the program has its own SIGURG: tokens only
    ready = true;
    (void)pthread_kill(slot->thread, kCallInterruptSignal);
  }
}

unsigned BlockingPool::threads_started() const {
  std::lock_guard g(mutex_);
  return static_cast<unsigned>(threads_.size());
}

std::uint64_t BlockingPool::calls() const {
  std::lock_guard g(mutex_);
  return calls_;
}

}  // namespace kpn
