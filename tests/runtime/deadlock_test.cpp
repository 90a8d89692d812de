#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <kpn.hpp>

#include "support.hpp"

using Catch::Matchers::Contains;

namespace {

const kpn::DeadlockError::Blocked* find_blocked(const kpn::DeadlockError& e, const std::string& process) {
  const auto& b = e.blocked();
  auto it = std::find_if(b.begin(), b.end(), [&](const auto& x) { return x.process == process; });
  return it == b.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("two processes each reading what the other would write are reported as a deadlock", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [to_left_tx, to_left_rx] = net.channel<int>(1, "to-left");
    auto [to_right_tx, to_right_rx] = net.channel<int>(1, "to-right");
    // Each reads first and would write after: neither ever writes.
    net.process("left", [rx = std::move(to_left_rx), tx = std::move(to_right_tx)]() mutable {
      if (auto v = rx.read()) tx.write(*v);
    });
    net.process("right", [rx = std::move(to_right_rx), tx = std::move(to_left_tx)]() mutable {
      if (auto v = rx.read()) tx.write(*v);
    });
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::DeadlockError& e) {
      REQUIRE(e.blocked().size() == 2);
      const auto* left = find_blocked(e, "left");
      const auto* right = find_blocked(e, "right");
      REQUIRE(left != nullptr);
      REQUIRE(right != nullptr);
      CHECK(left->channel == "to-left");
      CHECK(left->direction == kpn::WaitDirection::Read);
      CHECK(right->channel == "to-right");
      CHECK(right->direction == kpn::WaitDirection::Read);
      REQUIRE_THAT(e.what(), Contains("left") && Contains("right") && Contains("to-left") && Contains("to-right"));
      REQUIRE(e.report() != nullptr);
    }
  }
}

TEST_CASE("a writer blocked on a full channel is reported as waiting to write", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [data_tx, data_rx] = net.channel<int>(1, "data");
    auto [signal_tx, signal_rx] = net.channel<int>(1, "signal");
    // The producer fills "data" and would signal after a second write; the consumer waits for the signal
    // before it reads "data".
    net.process("producer", [data = std::move(data_tx), signal = std::move(signal_tx)]() mutable {
      data.write(1);
      data.write(2);
      signal.write(0);
    });
    net.process("consumer", [data = std::move(data_rx), signal = std::move(signal_rx)]() mutable {
      signal.read();
      while (data.read()) {
      }
    });
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::DeadlockError& e) {
      REQUIRE(e.blocked().size() == 2);
      const auto* producer = find_blocked(e, "producer");
      const auto* consumer = find_blocked(e, "consumer");
      REQUIRE(producer != nullptr);
      REQUIRE(consumer != nullptr);
      CHECK(producer->channel == "data");
      CHECK(producer->direction == kpn::WaitDirection::Write);
      CHECK(consumer->channel == "signal");
      CHECK(consumer->direction == kpn::WaitDirection::Read);
    }
  }
}

TEST_CASE("a deadlock among some processes is reported once the others have finished", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(1, "forgotten");
    net.process("waiter", [rx = std::move(rx)]() mutable { rx.read(); });
    // Holds the writer until the end of the run without ever writing: it blocks on a channel of its own.
    auto [self_tx, self_rx] = net.channel<int>(1, "own");
    net.process("holder", [tx = std::move(tx), self_rx = std::move(self_rx), self_tx = std::move(self_tx)]() mutable {
      self_rx.read();
    });
    for (int i = 0; i < 10; ++i) {
      net.process("busy-" + std::to_string(i), [] {
        for (int k = 0; k < 10; ++k) kpn::yield();
      });
    }
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::DeadlockError& e) {
      REQUIRE(e.blocked().size() == 2);
      REQUIRE(find_blocked(e, "waiter") != nullptr);
      REQUIRE(find_blocked(e, "holder") != nullptr);
      CHECK(find_blocked(e, "holder")->channel == "own");
    }
  }
}

TEST_CASE("a network that finishes normally is never reported as a deadlock", "[runtime]") {
  constexpr int kRuns = 200;
  constexpr int kRounds = 20;
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Runtime rt({.cpus = cfg.cpus, .scheduler = cfg.scheduler});
    for (int run = 0; run < kRuns; ++run) {
      CAPTURE(run);
      kpn::Network net;
      auto [ping_tx, ping_rx] = net.channel<int>(1, "ping");
      auto [pong_tx, pong_rx] = net.channel<int>(1, "pong");
      int last = -1;  // written by "ping" only, read after run()
      net.process("ping", [tx = std::move(ping_tx), rx = std::move(pong_rx), &last]() mutable {
        for (int i = 0; i < kRounds; ++i) {
          tx.write(i);
          last = *rx.read();
        }
      });
      net.process("pong", [rx = std::move(ping_rx), tx = std::move(pong_tx)]() mutable {
        while (auto v = rx.read()) tx.write(*v);
      });
      REQUIRE_NOTHROW(rt.run(net));
      REQUIRE(last == kRounds - 1);
    }
  }
}
