#pragma once
// A double-ended ring buffer of processes, without a lock: the storage of a run-queue. Capacity is a power
// of two that doubles when full and never shrinks, so steady-state operations never allocate. Whoever owns
// a ring guards it (RunQueue with its spin lock, the `global` policy with its own).

#include <cstddef>
#include <memory>

#include "runtime/config.hpp"

namespace kpn {

class Process;

class ProcessRing {
 public:
  ProcessRing() : slots_(std::make_unique<Process*[]>(config::kRunQueueInitialCapacity)),
                  mask_(config::kRunQueueInitialCapacity - 1) {}

  std::size_t size() const noexcept { return size_; }
  void push_front(Process* p) {
    grow_if_full();
    head_ = (head_ - 1) & mask_;
    slots_[head_] = p;
    ++size_;
  }
  void push_back(Process* p) {
    grow_if_full();
    slots_[(head_ + size_) & mask_] = p;
    ++size_;
  }
  // Both pops require size() > 0.
  Process* pop_front() noexcept {
    Process* p = slots_[head_];
    head_ = (head_ + 1) & mask_;
    --size_;
    return p;
  }
  Process* pop_back() noexcept {
    --size_;
    return slots_[(head_ + size_) & mask_];
  }
  // The i-th entry from the front; requires i < size().
  Process* at(std::size_t i) const noexcept { return slots_[(head_ + i) & mask_]; }
  // Removes and returns the i-th entry from the front (i < size()); the others keep their order. Moves the
  // i entries in front of it, so it is meant for entries near the front.
  Process* remove_at(std::size_t i) noexcept {
    Process* p = at(i);
    for (std::size_t k = i; k > 0; --k) slots_[(head_ + k) & mask_] = slots_[(head_ + k - 1) & mask_];
    head_ = (head_ + 1) & mask_;
    --size_;
    return p;
  }
  void clear() noexcept {
    head_ = 0;
    size_ = 0;
  }

 private:
  void grow_if_full() {
    if (size_ <= mask_) return;
    const std::size_t cap = (mask_ + 1) * 2;
    auto bigger = std::make_unique<Process*[]>(cap);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) & mask_];
    slots_ = std::move(bigger);
    mask_ = cap - 1;
    head_ = 0;
  }

  std::unique_ptr<Process*[]> slots_;
  std::size_t mask_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace kpn
