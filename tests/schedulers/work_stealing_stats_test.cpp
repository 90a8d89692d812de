// What the work-stealing policies count: steal attempts only where there is another worker to steal from,
// successful steals among them, and context switches per worker that add up to the run's total.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include <kpn.hpp>

#include "support.hpp"

namespace {

// A small network with blocking in both directions, spawning and yielding, so every worker has
// something to switch to and, on several workers, something to steal.
kpn::RunReport run_ping_pong(const kpn::test::Config& cfg) {
  kpn::Network net;
  auto [ping_tx, ping_rx] = net.channel<int>(1);
  auto [pong_tx, pong_rx] = net.channel<int>(1);
  net.process("ping", [tx = std::move(ping_tx), rx = std::move(pong_rx)]() mutable {
    for (int i = 0; i < 2000; ++i) {
      tx.write(i);
      if (rx.read() != i) throw std::logic_error("pong answered out of turn");
    }
  });
  net.process("pong", [rx = std::move(ping_rx), tx = std::move(pong_tx)]() mutable {
    while (auto v = rx.read()) tx.write(*v);
  });
  net.process("spawner", [] {
    for (int i = 0; i < 50; ++i) {
      kpn::spawn("child-" + std::to_string(i), [] { kpn::yield(); });
      kpn::yield();
    }
  });
  return kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
}

}  // namespace

TEST_CASE("on one worker nothing is ever stolen or attempted", "[schedulers]") {
  for (const char* scheduler : {"ws-cur", "ws-last"}) {
    CAPTURE(scheduler);
    const kpn::RunReport report = run_ping_pong({scheduler, 1});
    REQUIRE(report.steal_attempts == 0);
    REQUIRE(report.steals == 0);
    REQUIRE(report.workers.size() == 1);
    REQUIRE(report.workers[0].steal_attempts == 0);
    REQUIRE(report.context_switches > 0);
  }
}

TEST_CASE("an idle worker steals a process queued behind a busy one", "[schedulers]") {
  for (const char* scheduler : {"ws-cur", "ws-last"}) {
    CAPTURE(scheduler);
    kpn::Network net;
    std::atomic<int> child_worker{-1};
    int busy_worker = -1;
    bool gave_up = false;
    // The busy process spawns a child onto its own worker's queue and then keeps that worker busy
    // (spinning without yielding) until the child has run; only the other worker can run it, by stealing.
    // The spin gives up after a generous time so that a broken scheduler fails the test instead of hanging it.
    net.process("busy", [&child_worker, &busy_worker, &gave_up] {
      busy_worker = kpn::this_process::worker();
      kpn::spawn("child", [&child_worker] { child_worker.store(kpn::this_process::worker()); });
      const auto give_up_at = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (child_worker.load() < 0) {
        if (std::chrono::steady_clock::now() > give_up_at) {
          gave_up = true;
          break;
        }
        std::this_thread::yield();
      }
    });
    const kpn::RunReport report = kpn::Runtime({.cpus = 2, .scheduler = scheduler}).run(net);
    REQUIRE_FALSE(gave_up);
    REQUIRE(child_worker.load() >= 0);
    REQUIRE(child_worker.load() != busy_worker);
    REQUIRE(report.steals >= 1);
    REQUIRE(report.steal_attempts > 0);
    REQUIRE(report.steals <= report.steal_attempts);
    for (const auto& w : report.workers) {
      CAPTURE(w.index);
      REQUIRE(w.steals <= w.steal_attempts);
    }
  }
}

TEST_CASE("with idle time on two workers steal attempts are counted and bound the steals", "[schedulers]") {
  for (const char* scheduler : {"ws-cur", "ws-last"}) {
    CAPTURE(scheduler);
    const kpn::RunReport report = run_ping_pong({scheduler, 2});
    REQUIRE(report.steals <= report.steal_attempts);
    // Two processes pass one token back and forth: most of the time one worker has nothing to do, and an
    // idle worker's every look at another queue is an attempt.
    REQUIRE(report.steal_attempts > 0);
  }
}

TEST_CASE("the report has one entry per worker in worker order", "[schedulers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    const kpn::RunReport report = run_ping_pong(cfg);
    REQUIRE(report.scheduler == cfg.scheduler);
    REQUIRE(report.cpus == cfg.cpus);
    REQUIRE(report.workers.size() == cfg.cpus);
    for (std::size_t i = 0; i < report.workers.size(); ++i) REQUIRE(report.workers[i].index == i);
  }
}

TEST_CASE("per-worker counters add up to the run's totals", "[schedulers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    const kpn::RunReport report = run_ping_pong(cfg);
    std::uint64_t switches = 0, attempts = 0, steals = 0;
    for (const auto& w : report.workers) {
      switches += w.context_switches;
      attempts += w.steal_attempts;
      steals += w.steals;
    }
    REQUIRE(switches == report.context_switches);
    REQUIRE(attempts == report.steal_attempts);
    REQUIRE(steals == report.steals);
    REQUIRE(report.steals <= report.steal_attempts);
    // Every process was switched in at least once, and the per-process counts add up too.
    REQUIRE(report.processes == 3 + 50);
    REQUIRE(report.context_switches >= report.processes);
    std::uint64_t process_switches = 0;
    for (const auto& p : report.process_details) process_switches += p.switches;
    REQUIRE(process_switches == report.context_switches);
  }
}
