#include <catch2/catch.hpp>

#include <kpn.hpp>

#include "support.hpp"

TEST_CASE("a channel delivers messages in the order they were written", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(4);
    std::vector<int> got;
    net.process("producer", [tx = std::move(tx)]() mutable {
      for (int i = 0; i < 1000; ++i) tx.write(i);
    });
    net.process("consumer", [rx = std::move(rx), &got]() mutable {
      while (auto v = rx.read()) got.push_back(*v);
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(got.size() == 1000);
    for (int i = 0; i < 1000; ++i) REQUIRE(got[static_cast<std::size_t>(i)] == i);
  }
}
