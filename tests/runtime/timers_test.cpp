#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <kpn.hpp>

#include "runtime/tracked.hpp"
#include "support.hpp"

// kpn::sleep_for / sleep_until: a sleep parks the process, not its worker; sleepers wake in deadline order
// and on time (checked with generous bounds: the suite runs on loaded machines and under sanitizers).

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST_CASE("a process sleeping 100 ms on one worker does not stop another from finishing its work meanwhile",
          "[runtime][timers]") {
  for (const auto& s : kpn::scheduler_list()) {
    CAPTURE(s.name);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(4);
    std::atomic<bool> work_done{false};
    bool done_when_woken = false;  // written by the sleeper, read after run()
    Clock::duration slept{};
    net.process("sleeper", [&] {
      const auto t0 = Clock::now();
      kpn::sleep_for(100ms);
      slept = Clock::now() - t0;
      done_when_woken = work_done.load();
    });
    net.process("producer", [tx = std::move(tx)]() mutable {
      for (int i = 0; i < 200; ++i) tx.write(i);
    });
    net.process("consumer", [rx = std::move(rx), &work_done]() mutable {
      long sum = 0;
      while (auto v = rx.read()) sum += *v;
      work_done.store(sum == 199 * 200 / 2);
    });
    kpn::Runtime({.cpus = 1, .scheduler = s.name}).run(net);
    CHECK(done_when_woken);
    CHECK(slept >= 100ms);
  }
}

TEST_CASE("sleeping processes wake in the order of their deadlines", "[runtime][timers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::mutex m;
    std::vector<int> woke;
    // The deadlines count from the moment the last sleeper has started: a run slow to start (a sanitizer,
    // more workers than CPUs) would otherwise find them all past and wake the sleepers in creation order.
    std::atomic<int> started{0};
    std::atomic<Clock::rep> start_ticks{0};
    // Declared latest deadline first, so that the order cannot come from the order of creation.
    for (int i = 3; i >= 0; --i) {
      net.process("sleeper-" + std::to_string(i), [&, i] {
        if (started.fetch_add(1) + 1 == 4) start_ticks.store((Clock::now() + 20ms).time_since_epoch().count());
        while (start_ticks.load() == 0) kpn::yield();
        kpn::sleep_until(Clock::time_point(Clock::duration(start_ticks.load())) + i * 40ms);
        std::lock_guard g(m);
        woke.push_back(i);
      });
    }
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(woke == std::vector<int>{0, 1, 2, 3});
    CHECK(Clock::now() >= Clock::time_point(Clock::duration(start_ticks.load())) + 120ms);
  }
}

TEST_CASE("a network whose only live processes sleep ends when they have slept", "[runtime][timers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::atomic<int> naps{0};
    for (int i = 0; i < 3; ++i) {
      net.process("napper-" + std::to_string(i), [&naps] {
        for (int k = 0; k < 3; ++k) {
          kpn::sleep_for(5ms);
          naps.fetch_add(1);
        }
      });
    }
    const auto t0 = Clock::now();
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(Clock::now() - t0 >= 15ms);
    CHECK(naps.load() == 9);
    CHECK(report.processes == 3);
  }
}

TEST_CASE("a sleep of zero or of a time already passed returns", "[runtime][timers]") {
  kpn::Network net;
  std::atomic<int> returned{0};
  net.process("p", [&returned] {
    kpn::sleep_for(0ms);
    returned.fetch_add(1);
    kpn::sleep_until(Clock::now() - 1s);
    returned.fetch_add(1);
  });
  kpn::Runtime({.cpus = 1}).run(net);
  CHECK(returned.load() == 2);
}

TEST_CASE("a negative sleep is an invalid_argument that names the duration", "[runtime][timers]") {
  kpn::Network net;
  std::string message;
  net.process("p", [&message] {
    try {
      kpn::sleep_for(-5ms);
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
  });
  kpn::Runtime({.cpus = 1}).run(net);
  CHECK_THAT(message, Catch::Contains("kpn::sleep_for") && Catch::Contains("-5 ms"));
}

TEST_CASE("sleeping outside a process is a logic error", "[runtime][timers]") {
  CHECK_THROWS_AS(kpn::sleep_for(1ms), std::logic_error);
}

TEST_CASE("a failure elsewhere unwinds a process sleeping for an hour", "[runtime][timers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::test::Census census;
    kpn::Network net;
    net.process("sleeper", [probe = kpn::test::Tracked(census)] { kpn::sleep_for(1h); });
    net.process("bomb", [] {
      kpn::sleep_for(5ms);
      throw std::runtime_error("boom");
    });
    const auto t0 = Clock::now();
    CHECK_THROWS_AS(kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net), kpn::ProcessFailed);
    CHECK(Clock::now() - t0 < 60s);
    CHECK(census.alive() == 0);
  }
}

TEST_CASE("an interrupt unwinds a network in which every process sleeps", "[runtime][timers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::test::Census census;
    kpn::Network net;
    std::atomic<int> asleep{0};
    for (int i = 0; i < 3; ++i) {
      net.process("sleeper-" + std::to_string(i), [&asleep, probe = kpn::test::Tracked(census)] {
        asleep.fetch_add(1);
        kpn::sleep_for(1h);
      });
    }
    kpn::Runtime rt({.cpus = cfg.cpus, .scheduler = cfg.scheduler});
    std::thread stopper([&] {
      while (asleep.load() < 3) std::this_thread::sleep_for(1ms);
      std::this_thread::sleep_for(10ms);
      rt.interrupt();
    });
    CHECK_THROWS_AS(rt.run(net), kpn::Interrupted);
    stopper.join();
    CHECK(census.alive() == 0);
  }
}

TEST_CASE("an earlier timer wakes the idle worker that waits for a later one", "[runtime][timers]") {
  // handoff lets idle workers sleep; one of them (the watcher) waits for the earliest deadline. Here the
  // watcher is a worker that went idle while `late` slept 2.5 s; `early` then sleeps 10 ms while `busy` keeps
  // another worker computing for 1.5 s, so only the watcher can fire it in time, and only if it learns the
  // new deadline (the third worker, idle once `early` sleeps, sleeps without a timeout: the watch is taken).
  auto spin_for = [](std::chrono::milliseconds d) {
    const auto end = Clock::now() + d;
    while (Clock::now() < end) {
    }
  };
  kpn::Network net;
  Clock::duration early_slept{};
  net.process("late", [] { kpn::sleep_for(2500ms); });
  net.process("early", [&] {
    spin_for(50ms);
    const auto t0 = Clock::now();
    kpn::sleep_for(10ms);
    early_slept = Clock::now() - t0;
  });
  net.process("busy", [&] { spin_for(1500ms); });
  kpn::Runtime({.cpus = 3, .scheduler = "handoff"}).run(net);
  CHECK(early_slept >= 10ms);
  CHECK(early_slept < 1s);
}
