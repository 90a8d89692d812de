#pragma once
// A worker as a policy sees it: its index among the run's workers, the processing unit it is pinned to,
// its counters, and a cheap random-number stream. Everything else about the kernel thread (its loop, the
// switch, the handshake after a switch) belongs to the mechanism (worker_thread.hpp) and is not a
// policy's business; a policy keeps its own per-worker state (queues, clocks) indexed by index().

#include <atomic>
#include <cstdint>

namespace kpn {

// Written only by the owning worker's thread (relaxed read-modify-write by that thread alone), read by
// anyone at any time; hence atomics without contention. Cache-line aligned so that workers never share a line.
struct alignas(64) WorkerCounters {
  std::atomic<std::uint64_t> context_switches{0};
  std::atomic<std::uint64_t> steal_attempts{0};
  std::atomic<std::uint64_t> steals{0};
  std::atomic<std::uint64_t> busy_ticks{0};
  std::atomic<std::uint64_t> idle_ticks{0};

  static void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
    c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
};

class alignas(64) Worker {
 public:
  // index: position among the run's workers; -1 for the runtime's teardown helper, which only unwinds.
  Worker(int index, int pu) noexcept
      : index_(index), pu_(pu), rng_(0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(index + 2)) {}
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  int index() const noexcept { return index_; }
  int pu() const noexcept { return pu_; }
  WorkerCounters& counters() noexcept { return counters_; }
  const WorkerCounters& counters() const noexcept { return counters_; }
  // A cheap per-worker random number (xorshift64*), for victim selection. Owner thread only.
  std::uint64_t next_random() noexcept {
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    return rng_ * 0x2545F4914F6CDD1Dull;
  }

 private:
  const int index_;
  const int pu_;
  std::uint64_t rng_;
  WorkerCounters counters_;
};

}  // namespace kpn
