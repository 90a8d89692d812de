#pragma once
// A counter that one thread alone writes and any thread may read at any time (workers' and policies'
// statistics, read by reports during and after a run). The writer adds with a relaxed load and store, no
// locked instruction: nobody else writes, so no increment is lost, and the atomic makes the concurrent
// reads well defined (a reader sees some recent value).

#include <atomic>
#include <cstdint>

namespace kpn {

inline void add_single_writer(std::atomic<std::uint64_t>& counter, std::uint64_t by = 1) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace kpn
