// Workers under a real-time policy (SCHED_FIFO, as `chrt -f` gives them) and more of them than CPUs. A
// SCHED_FIFO thread is never preempted by a thread of its own priority, so a worker that circles in its idle
// loop, waiting for work that only a worker sharing its CPU can take, holds that CPU for good: the run
// hangs (runtime/idle_workers.hpp, the withdrawn non-searcher). Needs the right to set SCHED_FIFO (root or
// CAP_SYS_NICE) and two CPUs; without them the test says so and checks nothing.
//
// A hang must not hang the suite: a watchdog thread at a higher real-time priority sleeps for the time limit
// and, if the runs have not finished, turns every thread of this process back to SCHED_OTHER, so the kernel
// shares the CPUs again and the runs end; the test then fails on the watchdog's verdict.

#include <catch2/catch.hpp>

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

namespace {

// Every thread of this process back to SCHED_OTHER.
void demote_every_thread() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return;
  const sched_param normal{.sched_priority = 0};
  while (const dirent* entry = readdir(dir)) {
    const int tid = std::atoi(entry->d_name);
    if (tid > 0) sched_setscheduler(tid, SCHED_OTHER, &normal);
  }
  closedir(dir);
}

// A pipeline of `stages` stages through channels of `capacity`; returns the sum the sink saw.
long run_pipeline(unsigned cpus, int count, int stages, std::size_t capacity) {
  kpn::Network net;
  std::vector<kpn::Writer<int>> outs;
  std::vector<kpn::Reader<int>> ins;
  for (int i = 0; i <= stages; ++i) {
    auto [tx, rx] = net.channel<int>(capacity);
    outs.push_back(std::move(tx));
    ins.push_back(std::move(rx));
  }
  net.process("source", [out = std::move(outs[0]), count]() mutable {
    for (int i = 0; i < count; ++i) out.write(i);
  });
  for (int s = 0; s < stages; ++s) {
    net.process("stage[" + std::to_string(s) + "]",
                [in = std::move(ins[static_cast<std::size_t>(s)]), out = std::move(outs[static_cast<std::size_t>(s) + 1])]() mutable {
                  while (auto v = in.read()) out.write(*v + 1);
                });
  }
  long sum = 0;
  net.process("sink", [in = std::move(ins[static_cast<std::size_t>(stages)]), &sum]() mutable {
    while (auto v = in.read()) sum += *v;
  });
  kpn::Runtime({.cpus = cpus}).run(net);
  return sum;
}

}  // namespace

TEST_CASE("the default policy's workers finish under SCHED_FIFO with twice as many workers as CPUs",
          "[runtime][idle][realtime]") {
  if (kpn::test::kSanitized) return;  // a sanitizer's own threads would run real-time too
  cpu_set_t before;
  CPU_ZERO(&before);
  REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
  if (CPU_COUNT(&before) < 2) {
    WARN("fewer than two CPUs allowed: nothing checked");
    return;
  }
  // The first two allowed CPUs, four workers: two per CPU.
  cpu_set_t two;
  CPU_ZERO(&two);
  for (int cpu = 0, taken = 0; cpu < CPU_SETSIZE && taken < 2; ++cpu) {
    if (CPU_ISSET(cpu, &before)) {
      CPU_SET(cpu, &two);
      ++taken;
    }
  }
  REQUIRE(sched_setaffinity(0, sizeof two, &two) == 0);
  const sched_param fifo{.sched_priority = 10};
  if (sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) {
    sched_setaffinity(0, sizeof before, &before);
    WARN("no right to set SCHED_FIFO: nothing checked");
    return;
  }

  std::mutex m;
  std::condition_variable cv;
  bool finished = false;
  std::atomic<bool> fired{false};
  // Created while this thread is SCHED_FIFO 10, so it is one too (threads inherit the policy), then above.
  std::thread watchdog([&] {
    const sched_param above{.sched_priority = 20};
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &above);
    std::unique_lock lock(m);
    if (!cv.wait_for(lock, std::chrono::seconds(30), [&] { return finished; })) {
      fired = true;
      demote_every_thread();
    }
  });

  constexpr int kCount = 50'000;
  constexpr int kStages = 8;
  const long expected = static_cast<long>(kCount) * (kCount - 1) / 2 + static_cast<long>(kCount) * kStages;
  std::vector<long> sums;
  for (int run = 0; run < 12; ++run) {
    for (std::size_t capacity : {1u, 4u, 64u}) sums.push_back(run_pipeline(4, kCount, kStages, capacity));
  }
  {
    std::lock_guard lock(m);
    finished = true;
  }
  cv.notify_one();
  watchdog.join();
  const sched_param normal{.sched_priority = 0};
  sched_setscheduler(0, SCHED_OTHER, &normal);
  sched_setaffinity(0, sizeof before, &before);

  CHECK_FALSE(fired.load());
  for (long sum : sums) CHECK(sum == expected);
}
