#pragma once
// A worker's run-queue ordered by process priority (ProcessOptions::priority), for the steal-half policy:
// one FIFO per priority level under one lock. The owner runs the front of its highest non-empty level; a
// thief takes what the owner would run last: the lowest levels first and, within a level, the back.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "runtime/config.hpp"
#include "runtime/spin_lock.hpp"
#include "schedulers/process_ring.hpp"

namespace kpn {

class Process;

class PriorityRunQueue {
 public:
  static constexpr int kLevels = config::kMaxPriority - config::kMinPriority + 1;
  static_assert(kLevels <= 32, "one bit per level in nonempty_");

  struct Entry {
    Process* process;
    int priority;
  };

  // `priority` must lie in [config::kMinPriority, config::kMaxPriority] (ProcessOptions are checked when a
  // process is created).
  void push(Process* p, int priority) {
    const unsigned level = static_cast<unsigned>(priority - config::kMinPriority);
    std::lock_guard g(lock_);
    levels_[level].push_back(p);
    nonempty_ |= 1u << level;
    publish_size(1, true);
  }
  // The front of the highest non-empty level, or nullptr.
  Process* pop_highest() {
    std::lock_guard g(lock_);
    if (nonempty_ == 0) return nullptr;
    const unsigned level = 31u - static_cast<unsigned>(__builtin_clz(nonempty_));
    Process* p = levels_[level].pop_front();
    if (levels_[level].size() == 0) nonempty_ &= ~(1u << level);
    publish_size(1, false);
    return p;
  }
  // A thief's batch under one lock: half the entries (rounded up: at least one if any), at most `max`,
  // lowest level first and the back of each level first. Returns how many went into `out`.
  std::size_t steal_half(Entry* out, std::size_t max) {
    std::lock_guard g(lock_);
    std::size_t n = size_ - size_ / 2;
    if (n > max) n = max;
    std::size_t got = 0;
    while (got < n) {
      const unsigned level = static_cast<unsigned>(__builtin_ctz(nonempty_));  // n <= size_: some level is non-empty
      out[got++] = {levels_[level].pop_back(), static_cast<int>(level) + config::kMinPriority};
      if (levels_[level].size() == 0) nonempty_ &= ~(1u << level);
    }
    publish_size(got, false);
    return got;
  }
  // A racy hint for thieves and sleepers; exact only while the queue is quiescent.
  std::size_t size_hint() const noexcept { return approx_size_.load(std::memory_order_relaxed); }

 private:
  void publish_size(std::size_t by, bool grow) noexcept {
    size_ = grow ? size_ + by : size_ - by;
    approx_size_.store(size_, std::memory_order_relaxed);
  }

  SpinLock lock_;
  std::array<ProcessRing, kLevels> levels_;  // guarded by lock_
  std::uint32_t nonempty_ = 0;               // bit l: levels_[l] is not empty; guarded by lock_
  std::size_t size_ = 0;                     // guarded by lock_
  std::atomic<std::size_t> approx_size_{0};
};

}  // namespace kpn
