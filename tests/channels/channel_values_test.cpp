// What a channel may carry and how big it may be: move-only values travel through it, and a channel
// holds at least one message.

#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

TEST_CASE("a channel carries move-only values", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [a_tx, a_rx] = net.channel<std::unique_ptr<int>>(2);
    auto [b_tx, b_rx] = net.channel<std::unique_ptr<int>>(3);
    std::vector<int> got;
    net.process("producer", [tx = std::move(a_tx)]() mutable {
      for (int i = 0; i < 200; ++i) tx.write(std::make_unique<int>(i));
    });
    // Forwards the same objects, so ownership moves through two channels.
    net.process("forwarder", [rx = std::move(a_rx), tx = std::move(b_tx)]() mutable {
      while (auto p = rx.read()) {
        **p *= 2;
        tx.write(std::move(*p));
      }
    });
    net.process("consumer", [rx = std::move(b_rx), &got]() mutable {
      while (auto p = rx.read()) got.push_back(*p ? **p : -1);
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(got.size() == 200);
    for (int i = 0; i < 200; ++i) REQUIRE(got[static_cast<std::size_t>(i)] == 2 * i);
  }
}

TEST_CASE("a channel of capacity 0 is rejected with std::invalid_argument", "[channels]") {
  kpn::Network net;
  REQUIRE_THROWS_AS(net.channel<int>(0), std::invalid_argument);
  REQUIRE_THROWS_AS(kpn::channel<int>(0), std::invalid_argument);
  REQUIRE_NOTHROW(net.channel<int>(1));
}

TEST_CASE("a channel of capacity 1 still carries a long stream", "[channels]") {
  constexpr long kMessages = kpn::test::full_or_sanitized(20000L, 4000L);
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<long>(1);
    long sum = 0;
    long count = 0;
    net.process("producer", [tx = std::move(tx)]() mutable {
      for (long i = 1; i <= kMessages; ++i) tx.write(i);
    });
    net.process("consumer", [rx = std::move(rx), &sum, &count]() mutable {
      while (auto v = rx.read()) {
        sum += *v;
        ++count;
      }
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(count == kMessages);
    REQUIRE(sum == kMessages * (kMessages + 1) / 2);
  }
}
