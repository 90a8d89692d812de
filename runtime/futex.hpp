#pragma once
// Waiting on a 32-bit atomic word with the futex system call, for the run's threads that sleep until
// another thread, or a signal handler, changes the word (idle_workers.hpp, worker_exits.hpp).
//
// The raw system call rather than std::atomic::wait: a wake-up must be async-signal-safe (Runtime::interrupt
// wakes sleepers from a signal handler), and libstdc++'s notify may take a lock. Every wait may return early
// (a signal, a spurious wake-up): callers look at their word again.

#include <atomic>
#include <climits>
#include <cstdint>
#include <ctime>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace kpn {

// Sleeps while `word` holds `expected`.
inline void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

// Sleeps while `word` holds `expected`, until `deadline_ns` on CLOCK_MONOTONIC (steady_clock's clock on
// Linux): an absolute time, so an early return does not stretch the wait.
inline void futex_wait_until(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                             std::int64_t deadline_ns) noexcept {
  timespec at{};
  at.tv_sec = static_cast<time_t>(deadline_ns / 1'000'000'000);
  at.tv_nsec = static_cast<long>(deadline_ns % 1'000'000'000);
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_BITSET_PRIVATE, expected, &at, nullptr,
            FUTEX_BITSET_MATCH_ANY);
}

// Wakes every thread sleeping on `word`. Async-signal-safe.
inline void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace kpn
