#pragma once
// Computing for a while without blocking, for tests that need a process to hold its worker (a long-running
// waker, a busy neighbour, CPU time to account for).

#include <chrono>

namespace kpn::test {

// Busy-waits for `d` of wall time: never a scheduling point, so the calling process keeps its worker.
inline void spin_for(std::chrono::nanoseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace kpn::test
