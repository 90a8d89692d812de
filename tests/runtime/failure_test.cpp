#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <string>

#include <kpn.hpp>

#include "support.hpp"
#include "tracked.hpp"

using Catch::Matchers::Contains;
using kpn::test::Census;
using kpn::test::Tracked;

namespace {

// A network in which "bomb" throws std::runtime_error("boom") while the other processes are in every
// state a process can be in: blocked reading, blocked writing, queued (yielding), spawned but not yet
// started, and (with many of them) initial processes that may not have started at all. Every process
// holds Tracked objects in its captures and on its stack.
// (Process bodies use no Catch2 assertions: those are not thread-safe.)
void build_failing_network(kpn::Network& net, Census& census) {
  auto [never_tx, never_rx] = net.channel<int>(1, "never-written");
  auto [full_tx, full_rx] = net.channel<int>(1, "never-read");
  auto [ready_tx, ready_rx] = net.channel<int>(4, "ready");
  auto [ready2_tx, ready2_rx] = net.channel<int>(4, "ready-2");

  net.process("reader", [rx = std::move(never_rx), ready = std::move(ready_tx), t = Tracked(census),
                         &census]() mutable {
    Tracked on_stack(census);
    ready.write(1);
    rx.read();  // blocks for good: the writer is the bomb, which never writes
  });
  net.process("writer", [tx = std::move(full_tx), ready = std::move(ready2_tx), t = Tracked(census),
                         &census]() mutable {
    Tracked on_stack(census);
    ready.write(1);
    tx.write(1);
    tx.write(2);  // blocks for good: the reader is the bomb, which never reads
  });
  net.process("spinner", [t = Tracked(census), &census] {
    Tracked on_stack(census);
    for (;;) kpn::yield();  // always queued or running
  });
  net.process("bomb", [never_tx = std::move(never_tx), full_rx = std::move(full_rx), r1 = std::move(ready_rx),
                       r2 = std::move(ready2_rx), t = Tracked(census), &census]() mutable {
    Tracked on_stack(census);
    r1.read();
    r2.read();
    // On the spawner's queue, behind the bomb: with one worker it never starts.
    kpn::spawn("unstarted-child", [t = Tracked(census)] {});
    throw std::runtime_error("boom");
  });
  for (int i = 0; i < 20; ++i) {
    net.process("bystander-" + std::to_string(i), [t = Tracked(census), &census] {
      Tracked on_stack(census);
      for (int k = 0; k < 3; ++k) kpn::yield();
    });
  }
}

}  // namespace

TEST_CASE("a process that throws makes run throw ProcessFailed naming it", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    Census census;
    {
      kpn::Network net;
      build_failing_network(net, census);
      try {
        kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
        FAIL("run() returned normally");
      } catch (const kpn::ProcessFailed& e) {
        REQUIRE(e.process() == "bomb");
        REQUIRE(e.message() == "boom");
        REQUIRE_THAT(e.what(), Contains("bomb") && Contains("boom"));
      }
    }
  }
}

TEST_CASE("a failed run unwinds every other process and destroys what they own", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    Census census;
    kpn::Network net;
    build_failing_network(net, census);
    REQUIRE_THROWS_AS(kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net), kpn::ProcessFailed);
    REQUIRE(census.made.load() > 0);
    REQUIRE(census.alive() == 0);
  }
}

TEST_CASE("ProcessFailed carries the report and the original exception", "[runtime]") {
  struct Boom : std::runtime_error {
    Boom() : std::runtime_error("boom") {}
  };
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    net.process("ok", [] {});
    net.process("bomb", [] { throw Boom(); });
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::ProcessFailed& e) {
      REQUIRE(e.report() != nullptr);
      REQUIRE(e.report()->cpus == cfg.cpus);
      REQUIRE(e.report()->scheduler == cfg.scheduler);
      REQUIRE(e.cause() != nullptr);
      REQUIRE_THROWS_AS(std::rethrow_exception(e.cause()), Boom);
      REQUIRE_THROWS_WITH(std::rethrow_exception(e.cause()), "boom");
    }
  }
}

TEST_CASE("a process that throws something other than a std::exception fails cleanly with a message",
          "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    Census census;
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(1);
    net.process("waiter", [rx = std::move(rx), t = Tracked(census)]() mutable { rx.read(); });
    net.process("thrower", [tx = std::move(tx), t = Tracked(census)] { throw 42; });
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::ProcessFailed& e) {
      REQUIRE(e.process() == "thrower");
      REQUIRE_FALSE(e.message().empty());
      REQUIRE_THAT(e.what(), Contains("thrower"));
      REQUIRE(e.report() != nullptr);
      try {
        std::rethrow_exception(e.cause());
        FAIL("cause() did not rethrow");
      } catch (int v) {
        REQUIRE(v == 42);
      }
    }
    REQUIRE(census.alive() == 0);
  }
}

TEST_CASE("when two processes throw, run reports one of them", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    net.process("first", [] { throw std::runtime_error("one"); });
    net.process("second", [] { throw std::runtime_error("two"); });
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::ProcessFailed& e) {
      const bool first = e.process() == "first" && e.message() == "one";
      const bool second = e.process() == "second" && e.message() == "two";
      REQUIRE((first || second));
    }
  }
}

TEST_CASE("a process blocked on a failed process's channel is unwound, not shown a clean end of stream",
          "[runtime]") {
  // The failing process's captures include the writer of the channel "consumer" reads. Destroying that
  // writer closes the channel; if that happens before the run is marked as stopping, the consumer is woken
  // with end-of-stream and runs on as if the stream had ended normally, while the run is failing. The
  // capture that sleeps in its destructor only widens that window so that a second worker sees it.
  struct SlowToDie {
    ~SlowToDie() { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }
  };
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    std::atomic<bool> saw_end{false};
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(1, "results");
    auto [go_tx, go_rx] = net.channel<int>(1, "go");
    net.process("consumer", [rx = std::move(rx), go = std::move(go_tx), &saw_end]() mutable {
      go.write(1);
      while (rx.read()) {
      }
      saw_end = true;  // only a normal end of stream gets here
    });
    net.process("producer", [slow = SlowToDie(), tx = std::move(tx), go = std::move(go_rx)]() mutable {
      go.read();
      kpn::yield();
      throw std::runtime_error("boom");
    });
    REQUIRE_THROWS_AS(kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net), kpn::ProcessFailed);
    REQUIRE_FALSE(saw_end.load());
  }
}
