#include "runtime/worker_exits.hpp"

#include <cstdint>

#include <pthread.h>

#include "runtime/call_interrupt.hpp"
#include "runtime/config.hpp"
#include "runtime/futex.hpp"
#include "runtime/log.hpp"
#include "runtime/steady_time.hpp"
#include "runtime/stop_state.hpp"

namespace kpn {

WorkerExits::WorkerExits(unsigned workers) : left_(std::make_unique<std::atomic<bool>[]>(workers)), workers_(workers) {}

void WorkerExits::left(unsigned index) noexcept {
  // Release: whatever the worker did happens before the waiter's acquire read of the word (the join orders
  // it again, for everything after).
  left_[index].store(true, std::memory_order_relaxed);
  events_.fetch_add(1, std::memory_order_release);
  futex_wake_all(events_);
}

void WorkerExits::stop_requested() noexcept {
  events_.fetch_add(1, std::memory_order_release);
  futex_wake_all(events_);
}

void WorkerExits::wait_and_join(std::vector<std::thread>& threads, const StopState& stop) {
  constexpr std::int64_t kMs = 1'000'000;
  std::int64_t next_nudge = -1;  // set once the stop is seen
  bool ours = true;              // false once the signal turned out not to be kpn's to send
  for (;;) {
    const std::uint32_t seen = events_.load(std::memory_order_acquire);
    unsigned gone = 0;
    for (unsigned i = 0; i < workers_; ++i) gone += left_[i].load(std::memory_order_relaxed) ? 1u : 0u;
    if (gone == workers_) break;
    if (!stop.stopping() || !ours) {
      futex_wait(events_, seen);
      continue;
    }
    const std::int64_t now = steady_ns();
    if (next_nudge < 0) next_nudge = now + std::int64_t{config::kStuckWorkerGraceMs} * kMs;
    if (now >= next_nudge) {
      ours = nudge(threads);
      next_nudge = now + std::int64_t{config::kStuckWorkerNudgeMs} * kMs;
      continue;
    }
    futex_wait_until(events_, seen, next_nudge);
  }
  for (auto& t : threads) t.join();
  if (signals_sent_ != 0) log().debug("the stopping run sent {} interrupt signals to workers stuck in their process", signals_sent_);
}

bool WorkerExits::nudge(std::vector<std::thread>& threads) {
  if (!call_interrupt_signal_ready()) return false;
  for (unsigned i = 0; i < workers_ && i < threads.size(); ++i) {
    // A thread that has not been joined may still be signalled, even once it has returned: its handle stays
    // valid until the join below.
    if (left_[i].load(std::memory_order_relaxed)) continue;
    if (pthread_kill(threads[i].native_handle(), kCallInterruptSignal) == 0) ++signals_sent_;
  }
  return true;
}

}  // namespace kpn
