#include "runtime/blocking_pool.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <system_error>

#include "runtime/call_interrupt.hpp"
#include "runtime/signal_mask.hpp"

namespace kpn {

BlockingPool::~BlockingPool() {
  {
    std::lock_guard g(mutex_);
    shutdown_ = true;
  }
  work_.notify_all();
  nudge_.notify_all();
  for (auto& t : threads_) t.join();
  if (nudger_.joinable()) nudger_.join();
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
    job.source = std::stop_source();  // may throw std::bad_alloc: nothing queued yet
    job.stop = job.source.get_token();
    // No callback can be registered yet (the function has not run): nothing runs under the lock.
    if (stopping_) job.source.request_stop();
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
  unblock_call_interrupt_signal();
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
    slot.stop = job->source;
    slot.caller = job->caller;
    g.unlock();
    job->run(*job);  // `job` may be gone once this returns
    g.lock();
    slot.running_interruptible = false;
    slot.stop = std::stop_source(std::nostopstate);
    slot.caller = 0;
    slot.nudge = false;
    if (--in_flight_ == 0) idle_.notify_all();
  }
}

void BlockingPool::wait_idle(bool stop_calls) {
  std::unique_lock g(mutex_);
  const auto idle = [this] { return in_flight_ == 0; };
  if (!stop_calls) {
    idle_.wait(g, idle);
    return;
  }
  stopping_ = true;
  std::vector<std::stop_source> sources;
  for (const BlockingJob* job = head_; job != nullptr; job = job->next) {
    if (job->interruptible) sources.push_back(job->source);
  }
  for (const auto& slot : slots_) {
    if (slot->running_interruptible) sources.push_back(slot->stop);
  }
  // Stop callbacks (std::stop_callback in a call's function) run here, on the run's thread, without the
  // pool's lock: a callback may take its own locks or wait a little.
  g.unlock();
  request_stops(sources);
  g.lock();
  while (!idle()) {
    nudge_interruptible_locked(false);
    idle_.wait_for(g, std::chrono::milliseconds(kNudgeMs), idle);
  }
}

void BlockingPool::stop_calls_of(const std::vector<std::uint64_t>& callers) {
  const auto among = [&callers](std::uint64_t caller) {
    return std::binary_search(callers.begin(), callers.end(), caller);
  };
  std::vector<std::stop_source> sources;
  {
    std::lock_guard g(mutex_);
    for (const BlockingJob* job = head_; job != nullptr; job = job->next) {
      if (job->interruptible && among(job->caller)) sources.push_back(job->source);
    }
    bool running = false;
    for (const auto& slot : slots_) {
      if (!slot->running_interruptible || !among(slot->caller)) continue;
      sources.push_back(slot->stop);
      slot->nudge = true;
      running = true;
    }
    if (running) {
      // Started once, then kept until the pool ends, with the asynchronous signals blocked as the run's
      // other threads (signal_mask.hpp: the caller may be a host thread, whose mask it would inherit).
      // Where it cannot start, the token alone stops the call, as where the program has its own SIGURG
      // action.
      if (!nudger_.joinable()) {
        try {
          const AsyncSignalsBlocked blocked;
          nudger_ = std::thread([this] { nudger_main(); });
        } catch (const std::system_error&) {
        }
      }
      nudge_.notify_one();
    }
  }
  request_stops(sources);
}

void BlockingPool::nudger_main() {
  std::unique_lock g(mutex_);
  while (!shutdown_) {
    // A signal that comes before its call's stop is requested (stop_calls_of sets the nudge first) only
    // makes the call look at its token early; the next one comes kNudgeMs later.
    if (nudge_interruptible_locked(true)) {
      nudge_.wait_for(g, std::chrono::milliseconds(kNudgeMs));
    } else {
      nudge_.wait(g);
    }
  }
}

void BlockingPool::request_stops(std::vector<std::stop_source>& sources) noexcept {
  for (auto& source : sources) source.request_stop();
}

bool BlockingPool::nudge_interruptible_locked(bool only_nudged) const {
  bool ready = false;
  for (const auto& slot : slots_) {
    if (!slot->running_interruptible || (only_nudged && !slot->nudge)) continue;
    if (!ready && !call_interrupt_signal_ready()) return false;  // the program has its own SIGURG: tokens only
    ready = true;
    (void)pthread_kill(slot->thread, kCallInterruptSignal);
  }
  return ready;
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
