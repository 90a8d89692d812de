#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <string>

#include <kpn.hpp>

#include "support.hpp"

TEST_CASE("run returns once every process has ended", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(2);
    std::atomic<int> ended{0};
    long sum = 0;  // written by the consumer only, read after run()
    net.process("producer", [tx = std::move(tx), &ended]() mutable {
      for (int i = 1; i <= 100; ++i) tx.write(i);
      tx.close();
      ended.fetch_add(1);
    });
    net.process("consumer", [rx = std::move(rx), &sum, &ended]() mutable {
      while (auto v = rx.read()) sum += *v;
      ended.fetch_add(1);
    });
    for (int i = 0; i < 4; ++i) {
      net.process("idle-" + std::to_string(i), [&ended] { ended.fetch_add(1); });
    }
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(ended.load() == 6);
    REQUIRE(sum == 5050);
    REQUIRE(report.processes == 6);
  }
}

TEST_CASE("an empty network returns at once with an empty report", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(report.processes == 0);
    REQUIRE(report.messages == 0);
    REQUIRE(report.process_details.empty());
    REQUIRE(report.workers.size() == cfg.cpus);
  }
}

TEST_CASE("the report counts initial and spawned processes", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    net.process("a", [] {
      kpn::spawn("a.child-1", [] {});
      kpn::spawn("a.child-2", [] { kpn::spawn("a.grandchild", [] {}); });
    });
    net.process("b", [] {});
    net.process("c", [] {});
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(report.processes == 6);
    REQUIRE(report.process_details.size() == 6);
  }
}

TEST_CASE("a network runs only once", "[runtime]") {
  kpn::Network net;
  std::atomic<int> runs{0};
  net.process("p", [&runs] { runs.fetch_add(1); });
  kpn::Runtime rt({.cpus = 1, .scheduler = "ws-last"});
  rt.run(net);
  REQUIRE(runs.load() == 1);
  REQUIRE_THROWS_AS(rt.run(net), std::logic_error);
  REQUIRE_THROWS_AS(kpn::Runtime({.cpus = 2, .scheduler = "ws-cur"}).run(net), std::logic_error);
  REQUIRE(runs.load() == 1);
}

TEST_CASE("a runtime runs one network after another", "[runtime]") {
  kpn::Runtime rt({.cpus = 2, .scheduler = "ws-cur"});
  for (int i = 0; i < 3; ++i) {
    kpn::Network net;
    std::atomic<int> runs{0};
    net.process("p", [&runs] { runs.fetch_add(1); });
    rt.run(net);
    REQUIRE(runs.load() == 1);
  }
}

TEST_CASE("a network with two processes of one name is rejected before anything runs", "[runtime]") {
  kpn::Network net;
  std::atomic<int> runs{0};
  net.process("twin", [&runs] { runs.fetch_add(1); });
  net.process("other", [&runs] { runs.fetch_add(1); });
  net.process("twin", [&runs] { runs.fetch_add(1); });
  try {
    kpn::Runtime({.cpus = 1}).run(net);
    FAIL("the run did not refuse the network");
  } catch (const std::invalid_argument& e) {
    REQUIRE(std::string(e.what()) == "duplicate process name 'twin'");
  }
  REQUIRE(runs.load() == 0);
}

// Only the count of active processes can tell that this network has ended (quiescence.hpp), and after
// thousands of hand-offs the workers owe it the decrements of the last parks (Worker::owe_deactivation): run()
// returns once they have paid. Hangs if a worker that runs dry keeps its debt.
TEST_CASE("run returns after a long run of hand-offs ends the network", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [ping_tx, ping_rx] = net.channel<int>(1, "ping");
    auto [pong_tx, pong_rx] = net.channel<int>(1, "pong");
    constexpr int kRounds = 20000;
    long last = 0;  // written by the client only, read after run()
    net.process("server", [rx = std::move(ping_rx), tx = std::move(pong_tx)]() mutable {
      while (auto v = rx.read()) tx.write(*v + 1);
    });
    net.process("client", [rx = std::move(pong_rx), tx = std::move(ping_tx), &last]() mutable {
      for (int i = 0; i < kRounds; ++i) {
        tx.write(i);
        last = *rx.read();
      }
      tx.close();
    });
    const kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(last == kRounds);
    REQUIRE(report.processes == 2);
  }
}
