#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "runtime/deadlocked_pair.hpp"
#include "support.hpp"

using Catch::Matchers::Contains;

namespace {

const kpn::DeadlockError::Blocked* find_blocked(const kpn::DeadlockError& e, const std::string& process) {
  const auto& b = e.blocked();
  auto it = std::find_if(b.begin(), b.end(), [&](const auto& x) { return x.process == process; });
  return it == b.end() ? nullptr : &*it;
}

const kpn::ChannelReport* find_channel(const kpn::RunReport& r, const std::string& name) {
  auto it = std::find_if(r.channels.begin(), r.channels.end(), [&](const auto& c) { return c.name == name; });
  return it == r.channels.end() ? nullptr : &*it;
}

// "producer" writes `count` messages into "data" (capacity 1) and only then signals "consumer", which reads
// the first message and then waits for the signal before it reads the rest: the network needs "data" to
// hold `count` - 1 messages. `got` is written by the consumer only.
void build_needs_capacity(kpn::Network& net, int count, std::vector<int>& got) {
  auto [data_tx, data_rx] = net.channel<int>(1, "data");
  auto [signal_tx, signal_rx] = net.channel<int>(1, "signal");
  net.process("producer", [data = std::move(data_tx), signal = std::move(signal_tx), count]() mutable {
    for (int i = 0; i < count; ++i) data.write(i);
    signal.write(0);
  });
  net.process("consumer", [data = std::move(data_rx), signal = std::move(signal_rx), &got]() mutable {
    got.push_back(*data.read());  // so that "data" knows its reader
    signal.read();
    while (auto v = data.read()) got.push_back(*v);
  });
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

TEST_CASE("a deadlock names the process at the other end of each channel and the cycle they form",
          "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    // Every endpoint is used before the deadlock, so the runtime knows which process holds it.
    kpn::test::add_deadlocked_pair(net, "left", "right");
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::DeadlockError& e) {
      REQUIRE(find_blocked(e, "left") != nullptr);
      REQUIRE(find_blocked(e, "right") != nullptr);
      CHECK(find_blocked(e, "left")->counterpart == "right");
      CHECK(find_blocked(e, "right")->counterpart == "left");
      REQUIRE(kpn::test::sorted_cycle(e) == std::vector<std::string>{"left", "right"});
    }
  }
}

TEST_CASE("with channel growth disabled, a writer blocked on a full channel is reported as waiting to write",
          "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    std::vector<int> got;
    kpn::Network net;
    build_needs_capacity(net, 3, got);
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler, .max_capacity = 1}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::DeadlockError& e) {
      REQUIRE(e.blocked().size() == 2);
      const auto* producer = find_blocked(e, "producer");
      const auto* consumer = find_blocked(e, "consumer");
      REQUIRE(producer != nullptr);
      REQUIRE(consumer != nullptr);
      CHECK(producer->channel == "data");
      CHECK(producer->direction == kpn::WaitDirection::Write);
      CHECK(producer->counterpart == "consumer");
      CHECK(consumer->channel == "signal");
      CHECK(consumer->direction == kpn::WaitDirection::Read);
      REQUIRE_THAT(e.what(), Contains("write") && Contains("data"));
    }
  }
}

TEST_CASE("an artificial deadlock is resolved by doubling the smallest full channel", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    std::vector<int> got;
    kpn::Network net;
    build_needs_capacity(net, 10, got);
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(got.size() == 10);
    for (int i = 0; i < 10; ++i) REQUIRE(got[static_cast<std::size_t>(i)] == i);
    // 1 -> 2 -> 4 -> 8 -> 16: the first capacity that holds the 9 messages the consumer leaves there.
    REQUIRE(report.deadlocks_resolved == 4);
    const kpn::ChannelReport* data = find_channel(report, "data");
    REQUIRE(data != nullptr);
    REQUIRE(data->capacity == 16);
  }
}

TEST_CASE("a channel is not grown past max_capacity: the deadlock is then reported", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    std::vector<int> got;
    kpn::Network net;
    build_needs_capacity(net, 10, got);
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler, .max_capacity = 4}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::DeadlockError& e) {
      const auto* producer = find_blocked(e, "producer");
      REQUIRE(producer != nullptr);
      CHECK(producer->channel == "data");
      CHECK(producer->direction == kpn::WaitDirection::Write);
      REQUIRE(e.report() != nullptr);
      REQUIRE(e.report()->deadlocks_resolved == 2);  // 1 -> 2 -> 4, then refused
      const kpn::ChannelReport* data = find_channel(*e.report(), "data");
      REQUIRE(data != nullptr);
      REQUIRE(data->capacity == 4);
      REQUIRE_THAT(e.what(), Contains("data") && Contains("4"));
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
      kpn::RunReport report;
      REQUIRE_NOTHROW(report = rt.run(net));
      REQUIRE(last == kRounds - 1);
      REQUIRE(report.deadlocks_resolved == 0);  // nor as an artificial one
    }
  }
}

// Workers settle the count of active processes lazily (a park's decrement is owed until the worker's next
// wake-up or until it runs dry: Worker::owe_deactivation); a deadlock that follows thousands of hand-offs must
// still be found (here the local scan may find it first; termination_test.cpp has the case only the count
// can decide).
TEST_CASE("a deadlock that follows a long run of hand-offs is reported", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [ping_tx, ping_rx] = net.channel<int>(1, "ping");
    auto [pong_tx, pong_rx] = net.channel<int>(1, "pong");
    constexpr int kRounds = 20000;
    // After kRounds round trips each reads once more: both wait to read, a deadlock.
    net.process("server", [rx = std::move(ping_rx), tx = std::move(pong_tx)]() mutable {
      for (int i = 0; i < kRounds; ++i) tx.write(*rx.read() + 1);
      rx.read();
    });
    net.process("client", [rx = std::move(pong_rx), tx = std::move(ping_tx)]() mutable {
      for (int i = 0; i < kRounds; ++i) {
        tx.write(i);
        REQUIRE(*rx.read() == i + 1);
      }
      rx.read();
    });
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::DeadlockError& e) {
      REQUIRE(e.blocked().size() == 2);
      REQUIRE(find_blocked(e, "server") != nullptr);
      REQUIRE(find_blocked(e, "client") != nullptr);
    }
  }
}
