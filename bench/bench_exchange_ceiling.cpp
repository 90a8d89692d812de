// exchange-ceiling: scatter-gather's messages and work between two pinned threads, with no runtime, moved
// the way kpn's channels must move them: a lock round (an `xchg` and a release store) per channel operation,
// the value in the channel's own cache line, a capacity of one. Nothing is scheduled, parked or woken: the
// master's thread writes every request, runs the 32 workers that live on its CPU (read, work, reply), then
// reads every reply; the other thread runs the other 32 workers, spinning on an empty request. So its W/wall
// is what this machine allows a runtime that keeps each channel's lock and data in one line and splits the
// workers evenly: what is left of the work-ceiling once every message to or from the other CPU has moved
// its channel's line there and back (a cache line's round trip between two CPUs, kpn-bench --only
// primitives). configs/scatter-gather.yaml with workers=64 capacity=1 is the same network under kpn.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "benchmarks.hpp"
#include "networks/work.hpp"
#include "runtime/cpu_relax.hpp"
#include "runtime/spin_lock.hpp"

namespace kpn_bench {
namespace {

constexpr std::size_t kWorkers = 64;
constexpr std::size_t kLocal = kWorkers / 2;  // workers [0, kLocal) share the master's CPU
constexpr std::int64_t kRounds = 2000;

// A capacity-1 channel: its lock, value and fill in one line, as a kpn channel keeps them.
struct alignas(64) Cell {
  kpn::SpinLock lock;
  std::atomic<bool> full{false};  // written under the lock; read racily only to spin without the lock
  std::int64_t value = 0;         // guarded by lock
};

void put(Cell& c, std::int64_t v) {
  for (;;) {
    {
      std::lock_guard g(c.lock);
      if (!c.full.load(std::memory_order_relaxed)) {
        c.value = v;
        c.full.store(true, std::memory_order_relaxed);
        return;
      }
    }
    while (c.full.load(std::memory_order_relaxed)) kpn::cpu_relax();
  }
}

std::int64_t take(Cell& c) {
  for (;;) {
    while (!c.full.load(std::memory_order_relaxed)) kpn::cpu_relax();
    std::lock_guard g(c.lock);
    if (c.full.load(std::memory_order_relaxed)) {
      c.full.store(false, std::memory_order_relaxed);
      return c.value;
    }
  }
}

void serve(Cell& request, Cell& reply, std::uint64_t iterations) {
  const std::int64_t v = take(request);
  kpn::work::burn(iterations, static_cast<std::uint64_t>(v));
  put(reply, v);
}

// Seconds from the start signal until both threads have run every round.
double exchange_on(int master_cpu, int other_cpu, std::uint64_t iterations) {
  using clock = std::chrono::steady_clock;
  auto requests = std::make_unique<Cell[]>(kWorkers);
  auto replies = std::make_unique<Cell[]>(kWorkers);
  std::latch start_line(3);  // blocking, not spinning: see burn_on in bench_work_ceiling.cpp
  clock::time_point master_done, other_done;
  bool wrong_reply = false;
  std::thread master([&] {
    pin_this_thread(master_cpu);
    start_line.arrive_and_wait();
    for (std::int64_t r = 0; r < kRounds; ++r) {
      // The other CPU's requests first, so that its workers start as early as they can.
      for (std::size_t k = kWorkers; k-- > 0;) put(requests[k], r);
      for (std::size_t k = 0; k < kLocal; ++k) serve(requests[k], replies[k], iterations);
      for (std::size_t k = 0; k < kWorkers; ++k) wrong_reply |= take(replies[k]) != r;
    }
    master_done = clock::now();
  });
  std::thread other([&] {
    pin_this_thread(other_cpu);
    start_line.arrive_and_wait();
    for (std::int64_t r = 0; r < kRounds; ++r) {
      for (std::size_t k = kLocal; k < kWorkers; ++k) serve(requests[k], replies[k], iterations);
    }
    other_done = clock::now();
  });
  const auto start = clock::now();
  start_line.arrive_and_wait();
  master.join();
  other.join();
  if (wrong_reply) throw std::logic_error("exchange-ceiling: a reply came back for the wrong round");
  return std::chrono::duration<double>(std::max(master_done, other_done) - start).count();
}

}  // namespace

Result bench_exchange_ceiling(const Options& o) {
  const std::vector<int> cpus = first_allowed_cpus("exchange-ceiling", 2);
  Result r;
  r.bench = "exchange-ceiling";
  const std::uint64_t messages = kWorkers * static_cast<std::uint64_t>(kRounds);
  r.what = fmt::format("{} messages of w us of kpn::work (scatter-gather, 64 workers x {} rounds, capacity 1) "
                       "through lock-guarded one-line channels between 2 pinned threads, 32 workers on each, "
                       "no runtime; W/wall = messages x w / wall",
                       messages, kRounds);
  if (o.t0 > 0) kpn::work::set_iterations_per_second(o.t0);
  const double t0 = kpn::work::iterations_per_second();
  r.config = {{"cpus", "2"}, {"messages", std::to_string(messages)}, {"iterations_per_s", fmt::format("{:.4g}", t0)}};
  Metric& w0 = r.metric("w0_messages_per_s", "M/s");
  Metric& w1 = r.metric("w1_work_per_wall", "x");
  Metric& w10 = r.metric("w10_work_per_wall", "x");
  for (int rep = 0; rep < o.reps; ++rep) {
    for (const double us : {0.0, 1.0, 10.0}) {
      const double wall = exchange_on(cpus[0], cpus[1], kpn::work::iterations_for_us(us));
      if (us == 0.0) {
        w0.samples.push_back(static_cast<double>(messages) / wall * 1e-6);
      } else {
        (us == 1.0 ? w1 : w10).samples.push_back(static_cast<double>(messages) * us * 1e-6 / wall);
      }
    }
  }
  return r;
}

}  // namespace kpn_bench
