#pragma once
// A worker's run-queue, as in the Nornir paper ("A simple improvement of the work-stealing scheduling
// algorithm"): the owner pushes and pops at the front, thieves take from the back, and (WS-LAST) other
// workers push at the front. A lock guards it, because WS-LAST inserts at the front of
// another worker's queue, which the lock-free deques of the literature do not allow. Storage is a ring
// buffer that doubles when full and never shrinks, so steady-state operations never allocate.

#include <atomic>
#include <cstddef>
#include <memory>

#include "runtime/config.hpp"
#include "runtime/spin_lock.hpp"

namespace kpn {

class Process;

class RunQueue {
 public:
  RunQueue() : slots_(std::make_unique<Process*[]>(config::kRunQueueInitialCapacity)),
               mask_(config::kRunQueueInitialCapacity - 1) {}

  void push_front(Process* p) {
    std::lock_guard g(lock_);
    grow_if_full();
    head_ = (head_ - 1) & mask_;
    slots_[head_] = p;
    set_size(size_ + 1);
  }
  void push_back(Process* p) {
    std::lock_guard g(lock_);
    grow_if_full();
    slots_[(head_ + size_) & mask_] = p;
    set_size(size_ + 1);
  }
  Process* pop_front() {
    std::lock_guard g(lock_);
    if (size_ == 0) return nullptr;
    Process* p = slots_[head_];
    head_ = (head_ + 1) & mask_;
    set_size(size_ - 1);
    return p;
  }
  Process* pop_back() {
    std::lock_guard g(lock_);
    if (size_ == 0) return nullptr;
    set_size(size_ - 1);
    return slots_[(head_ + size_) & mask_];
  }
  // Takes the older half of the entries (at least one, at most `max`) from the front into `out`, under one
  // lock: a thief's batch (Go's runqgrab). Returns how many.
  std::size_t pop_front_half(Process** out, std::size_t max) {
    std::lock_guard g(lock_);
    std::size_t n = size_ - size_ / 2;
    if (n > max) n = max;
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = slots_[head_];
      head_ = (head_ + 1) & mask_;
    }
    set_size(size_ - n);
    return n;
  }
  // Forgets every entry (a new run begins; the old entries belonged to the last run).
  void clear() {
    std::lock_guard g(lock_);
    head_ = 0;
    set_size(0);
  }
  // A racy hint for policies and reports; exact only while the queue is quiescent.
  std::size_t size_hint() const noexcept { return approx_size_.load(std::memory_order_relaxed); }

 private:
  void set_size(std::size_t n) {
    size_ = n;
    approx_size_.store(n, std::memory_order_relaxed);
  }
  void grow_if_full() {
    if (size_ <= mask_) return;
    const std::size_t cap = (mask_ + 1) * 2;
    auto bigger = std::make_unique<Process*[]>(cap);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) & mask_];
    slots_ = std::move(bigger);
    mask_ = cap - 1;
    head_ = 0;
  }

  SpinLock lock_;
  // Guarded by lock_.
  std::unique_ptr<Process*[]> slots_;
  std::size_t mask_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::atomic<std::size_t> approx_size_{0};
};

}  // namespace kpn
