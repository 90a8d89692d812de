// The global policy (schedulers/global.hpp): one FIFO queue that every worker shares, Zorro's global-pool
// baseline. What it promises beyond every policy's behaviours (tests/schedulers/zorro_menu_test.cpp):
// first ready, first run; and statistics that account for every process it was handed.

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <kpn.hpp>

#include "spin_for.hpp"

using Catch::Matchers::Contains;

namespace {

double stat(const kpn::RunReport& r, const std::string& name) {
  for (const auto& [key, value] : r.scheduler_stats) {
    if (key == name) return value;
  }
  FAIL("no scheduler stat " << name);
  return -1;
}

}  // namespace

TEST_CASE("the global policy is registered by name and described as Zorro's baseline", "[schedulers][global]") {
  const auto list = kpn::scheduler_list();
  const auto it = std::find_if(list.begin(), list.end(), [](const kpn::SchedulerInfo& s) { return s.name == "global"; });
  REQUIRE(it != list.end());
  REQUIRE_THAT(it->description, Contains("Zorro") && Contains("seed 003"));
  REQUIRE(kpn::make_scheduler("global")->name() == "global");
}

TEST_CASE("the global policy runs processes in the order they became ready", "[schedulers][global]") {
  // One worker, so the order is the queue's: spawned processes and a yielding one go to the back.
  kpn::Network net;
  std::vector<std::string> order;  // one worker: only one process runs at a time
  net.process("a", [&order] {
    order.push_back("a");
    kpn::spawn("b", [&order] { order.push_back("b"); });
    kpn::spawn("c", [&order] { order.push_back("c"); });
    kpn::yield();
    order.push_back("a again");
  });
  net.process("d", [&order] { order.push_back("d"); });
  kpn::Runtime({.cpus = 1, .scheduler = "global"}).run(net);
  REQUIRE(order == std::vector<std::string>{"a", "d", "b", "c", "a again"});
}

TEST_CASE("the global policy wakes an unblocked process behind those already ready", "[schedulers][global]") {
  // The reader blocks on an empty channel; the writer's write readies it, but "other" became ready first.
  kpn::Network net;
  std::vector<std::string> order;
  auto [tx, rx] = net.channel<int>(1);
  net.process("reader", [&order, rx = std::move(rx)]() mutable {
    order.push_back("reader waits");
    if (rx.read()) order.push_back("reader got it");
  });
  net.process("writer", [&order, tx = std::move(tx)]() mutable {
    tx.write(1);
    order.push_back("writer wrote");
  });
  net.process("other", [&order] { order.push_back("other"); });
  kpn::Runtime({.cpus = 1, .scheduler = "global"}).run(net);
  REQUIRE(order == std::vector<std::string>{"reader waits", "writer wrote", "other", "reader got it"});
}

TEST_CASE("the global policy's statistics account for every process it handed out", "[schedulers][global]") {
  for (unsigned cpus : {1u, 2u, 4u}) {
    CAPTURE(cpus);
    kpn::Network net;
    constexpr int kPairs = 16;
    for (int i = 0; i < kPairs; ++i) {
      auto [tx, rx] = net.channel<int>(1);
      net.process("producer-" + std::to_string(i), [tx = std::move(tx)]() mutable {
        for (int v = 0; v < 100; ++v) tx.write(v);
      });
      net.process("consumer-" + std::to_string(i), [rx = std::move(rx)]() mutable {
        while (rx.read()) {
        }
      });
    }
    kpn::Runtime rt({.cpus = cpus, .scheduler = "global"});
    const kpn::RunReport report = rt.run(net);
    CAPTURE(report.summary());
    // Every switch into a process was one pop, and every process pushed was popped once.
    REQUIRE(stat(report, "queue_pops") == static_cast<double>(report.context_switches));
    REQUIRE(stat(report, "queue_pushes") == stat(report, "queue_pops"));
    REQUIRE(stat(report, "lock_acquisitions") ==
            stat(report, "queue_pushes") + stat(report, "queue_pops") + stat(report, "empty_polls"));
    REQUIRE(stat(report, "lock_contended") <= stat(report, "lock_acquisitions"));
    REQUIRE(stat(report, "lock_contended_share") >= 0);
    REQUIRE(stat(report, "lock_contended_share") <= 1);
    // The whole initial network was queued before the workers started.
    REQUIRE(stat(report, "max_queue_length") >= 2 * kPairs);
    REQUIRE(report.steal_attempts == 0);
    REQUIRE_THAT(report.summary(), Contains("lock_contended"));
    REQUIRE_THAT(report.to_json(), Contains("\"queue_pops\":"));

    // A second run on the same policy starts from zero.
    kpn::Network again;
    again.process("alone", [] {});
    const kpn::RunReport second = rt.run(again);
    REQUIRE(stat(second, "queue_pushes") == 1);
    REQUIRE(stat(second, "queue_pops") == 1);
  }
}

TEST_CASE("the global policy's idle worker sleeps while another computes", "[schedulers][global]") {
  kpn::Network net;
  net.process("busy", [] { kpn::test::spin_for(std::chrono::milliseconds(100)); });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "global"}).run(net);
  CAPTURE(r.summary());
  // The second worker found the queue empty for 100 ms: it spun briefly, then waited on its futex.
  REQUIRE(stat(r, "sleeps") >= 1);
  REQUIRE(stat(r, "futex_wakes") <= stat(r, "wakeups"));
}

TEST_CASE("the global policy wakes a sleeping worker for a process queued while it sleeps", "[schedulers][global]") {
  // One process at first, so the second worker has nothing and sleeps. 50 ms later the first spawns a
  // second and then computes, never reaching a scheduling point, until the second has run: only the
  // other worker can run it, and only if the spawn woke it. (The 10 s limit turns a lost wake-up into a
  // failure instead of a hang.)
  kpn::Network net;
  auto second_ran = std::make_shared<std::atomic<bool>>(false);
  bool seen = false;
  net.process("first", [second_ran, &seen] {
    kpn::test::spin_for(std::chrono::milliseconds(50));
    kpn::spawn("second", [second_ran] { second_ran->store(true, std::memory_order_release); });
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!second_ran->load(std::memory_order_acquire) && std::chrono::steady_clock::now() < limit) {
    }
    seen = second_ran->load(std::memory_order_acquire);
  });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "global"}).run(net);
  CAPTURE(r.summary());
  REQUIRE(seen);
  REQUIRE(stat(r, "wakeups") >= 1);
}

TEST_CASE("the global policy's lone yielding process wakes no sleeping worker", "[schedulers][global]") {
  // The other worker has nothing to do and sleeps through the first 20 ms. Each yield then puts the process
  // into an empty queue, from which its own worker takes it right back: waking the sleeper for it cost a
  // futex call a yield and kept both CPUs busy for one process's work (541 against 89 ns a yield).
  kpn::Network net;
  net.process("yielder", [] {
    kpn::test::spin_for(std::chrono::milliseconds(20));
    for (int i = 0; i < 20000; ++i) kpn::yield();
  });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "global"}).run(net);
  CAPTURE(r.summary());
  REQUIRE(stat(r, "queue_pushes") >= 20000);
  REQUIRE(stat(r, "wakeups") <= 2);
}
