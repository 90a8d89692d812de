#include "runtime/blocking_pool.hpp"

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
      threads_.emplace_back([this] { thread_main(); });
    } catch (...) {
      // Out of threads or memory: queue behind the existing threads, if there are any.
      if (threads_.empty()) throw;
    }
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

void BlockingPool::thread_main() {
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
    g.unlock();
    job->run(*job);  // `job` may be gone once this returns
    g.lock();
    if (--in_flight_ == 0) idle_.notify_all();
  }
}

void BlockingPool::wait_idle() {
  std::unique_lock g(mutex_);
  idle_.wait(g, [this] { return in_flight_ == 0; });
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
