#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

#include <kpn.hpp>

#include "support.hpp"

// A parking process switches straight to the next process of its worker (runtime/worker_thread.hpp), so
// two processes that ping-pong on one worker may never pass through the worker's loop. What the loop does
// between two processes must still happen: timers fire, a stop or a cancel unwinds them, a process that
// has not started gets its stack, and the counters see every switch.

using namespace std::chrono_literals;

namespace {

// Two processes that ping-pong until `stop` is set, on capacity-1 channels: every write wakes the other
// and every read parks, so each switch is a park (a direct switch wherever the policy has one).
// The pinger throws at round `fail_at` (never if negative).
void add_ping_pong(kpn::Network& net, const std::atomic<bool>& stop, std::atomic<long>& round_trips, long fail_at = -1) {
  auto [ping_tx, ping_rx] = net.channel<long>(1, "ping");
  auto [pong_tx, pong_rx] = net.channel<long>(1, "pong");
  net.process("pinger", [&stop, &round_trips, fail_at, tx = std::move(ping_tx), rx = std::move(pong_rx)]() mutable {
    for (long i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      if (i == fail_at) throw std::runtime_error("enough");
      tx.write(i);
      if (rx.read() != i) throw std::runtime_error("ping-pong: wrong reply");
      round_trips.fetch_add(1, std::memory_order_relaxed);
    }
  });
  net.process("ponger", [rx = std::move(ping_rx), tx = std::move(pong_tx)]() mutable {
    while (auto v = rx.read()) tx.write(*v);
  });
}

// Two processes that do nothing but yield until `stop` is set: under the default policy every yield
// switches straight to the other, never through the worker's loop. "yielder a" throws at its `fail_at`th
// yield (never if negative).
void add_yielders(kpn::Network& net, const std::atomic<bool>& stop, std::atomic<long>& yields, long fail_at = -1) {
  for (const char* name : {"yielder a", "yielder b"}) {
    const bool fails = name[8] == 'a' && fail_at >= 0;
    net.process(name, [&stop, &yields, fails, fail_at] {
      for (long i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        if (fails && i == fail_at) throw std::runtime_error("enough yielding");
        kpn::yield();
        yields.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
}

// The two pairs whose every switch may be direct: one that parks (ping-pong), one that yields.
struct Pair {
  const char* what;
  void (*add)(kpn::Network&, const std::atomic<bool>&, std::atomic<long>&, long);
  const char* fails;  // the name of the process that throws
  bool exact;         // its count at the throw is exactly `fail_at` (the yielders share theirs)
};
const Pair kPingPong{"ping-pong", add_ping_pong, "pinger", true};
const Pair kYielders{"yielders", add_yielders, "yielder a", false};

}  // namespace

TEST_CASE("a sleeper wakes while two processes ping-pong or yield on its worker without pause", "[runtime][direct-switch]") {
  // The default policy: its queue is first in, first out, so the woken sleeper runs within a round or
  // two. (Under the Nornir paper's work stealing a woken process goes to the front of the queue, where the
  // ping-pong keeps overtaking it; that is the paper's policy, with or without direct switches.)
  const Pair pair = GENERATE(kPingPong, kYielders);
  CAPTURE(pair.what);
  kpn::Network net;
  std::atomic<bool> stop{false};
  std::atomic<long> rounds{0};
  pair.add(net, stop, rounds, -1);
  net.process("sleeper", [&stop] {
    kpn::sleep_for(30ms);  // fires only if the direct switches look at the timers
    stop.store(true, std::memory_order_relaxed);
  });
  // No local-deadlock scan: its look at the channels takes their locks, and a process that finds a lock
  // taken yields through the loop, which would fire the timer even without the direct switches' look.
  const kpn::RunReport report = kpn::Runtime({.cpus = 1, .local_deadlock_scan_ms = 0}).run(net);
  CHECK(stop.load());
  CHECK(rounds.load() > 0);
  CHECK(report.processes == 3);
}

TEST_CASE("a failing process stops two processes that ping-pong or yield through direct switches", "[runtime][direct-switch]") {
  const Pair pair = GENERATE(kPingPong, kYielders);
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(pair.what, cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::atomic<bool> never{false};
    std::atomic<long> rounds{0};
    pair.add(net, never, rounds, 1000);
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("the run should have failed");
    } catch (const kpn::ProcessFailed& e) {
      CHECK(std::string(e.what()).find(pair.fails) != std::string::npos);
      // The pinger throws before its 1001st round trip; yielder a before its 1001st yield, while b
      // counts its own yields into the same total.
      if (pair.exact) {
        CHECK(rounds.load() == 1000);
      } else {
        CHECK(rounds.load() >= 1000);
      }
    }
  }
}

TEST_CASE("every switch of a ping-pong is counted once, whether it went through the worker or not", "[runtime][direct-switch]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    if (cfg.cpus != 1) continue;
    CAPTURE(cfg.scheduler);
    kpn::Network net;
    constexpr long kRounds = 2000;
    auto [ping_tx, ping_rx] = net.channel<long>(1, "ping");
    auto [pong_tx, pong_rx] = net.channel<long>(1, "pong");
    net.process("pinger", [tx = std::move(ping_tx), rx = std::move(pong_rx)]() mutable {
      for (long i = 0; i < kRounds; ++i) {
        tx.write(i);
        (void)rx.read();
      }
    });
    net.process("ponger", [rx = std::move(ping_rx), tx = std::move(pong_tx)]() mutable {
      while (auto v = rx.read()) tx.write(*v);
    });
    const kpn::RunReport report = kpn::Runtime({.cpus = 1, .scheduler = cfg.scheduler}).run(net);
    std::uint64_t per_process = 0;
    for (const auto& p : report.process_details) per_process += p.switches;
    // Each process is switched to once per round (it parks once per round), give or take its start and end.
    CHECK(report.context_switches == per_process);
    CHECK(report.context_switches >= 2 * kRounds);
    CHECK(report.context_switches <= 2 * kRounds + 4);
    CHECK(report.messages == 2 * kRounds);
  }
}

TEST_CASE("processes that never ran start when a parking process's worker finds them first", "[runtime][direct-switch]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    // A producer that parks on a full channel at once, with 200 consumers queued behind it that have
    // not run yet: the first processes a parking producer finds have no stack.
    kpn::Network net;
    constexpr int kReaders = 200;
    std::atomic<long> sum{0};
    for (int r = 0; r < kReaders; ++r) {
      auto [tx, rx] = net.channel<int>(1, "c" + std::to_string(r));
      net.process("producer-" + std::to_string(r), [tx = std::move(tx), r]() mutable {
        for (int i = 0; i < 5; ++i) tx.write(r + i);
      });
      net.process("consumer-" + std::to_string(r), [rx = std::move(rx), &sum]() mutable {
        while (auto v = rx.read()) sum.fetch_add(*v, std::memory_order_relaxed);
      });
    }
    const kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    long expected = 0;
    for (int r = 0; r < kReaders; ++r) expected += 5L * r + 10;
    CHECK(sum.load() == expected);
    CHECK(report.processes == 2 * kReaders);
  }
}

