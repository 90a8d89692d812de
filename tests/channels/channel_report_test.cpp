// What a run reports about its channels: every channel of the network and every channel a process created
// while it ran, each with its capacity and the number of messages written to it.

#include <catch2/catch.hpp>

#include <string>

#include <kpn.hpp>

#include "support.hpp"

namespace {

const kpn::ChannelReport* find_channel(const kpn::RunReport& report, const std::string& name) {
  for (const auto& c : report.channels) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Messages written to the named channel, or -1 if the report does not list it.
long long messages_of(const kpn::RunReport& report, const std::string& name) {
  const kpn::ChannelReport* c = find_channel(report, name);
  return c != nullptr ? static_cast<long long>(c->messages) : -1;
}

}  // namespace

TEST_CASE("a channel created inside a running process works and appears in the report", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    int sum = 0;
    std::string unnamed;
    net.process("parent", [&sum, &unnamed]() mutable {
      auto [tx, rx] = kpn::channel<int>(3, "inner");
      kpn::spawn("child", [tx = std::move(tx)]() mutable {
        for (int i = 1; i <= 10; ++i) tx.write(i);
      });
      while (auto v = rx.read()) sum += *v;
      auto [tx2, rx2] = kpn::channel<int>(5);  // unnamed: gets "channel-<n>"
      unnamed = tx2.channel_name();
    });
    const kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(sum == 55);
    const kpn::ChannelReport* inner = find_channel(report, "inner");
    REQUIRE(inner != nullptr);
    REQUIRE(inner->capacity == 3);
    REQUIRE(inner->messages == 10);
    REQUIRE_THAT(unnamed, Catch::StartsWith("channel-"));
    const kpn::ChannelReport* other = find_channel(report, unnamed);
    REQUIRE(other != nullptr);
    REQUIRE(other->capacity == 5);
    REQUIRE(other->messages == 0);
    REQUIRE(report.channels.size() == 2);
  }
}

TEST_CASE("the report's message count equals the number of messages written", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [a_tx, a_rx] = net.channel<int>(2, "a");
    auto [b_tx, b_rx] = net.channel<int>(5, "b");
    auto [idle_tx, idle_rx] = net.channel<int>(1, "idle");
    // a: 100 messages; b: 37; idle: none; a channel made inside a process: 11.
    net.process("source", [tx = std::move(a_tx), idle = std::move(idle_tx)]() mutable {
      for (int i = 0; i < 100; ++i) tx.write(i);
    });
    net.process("filter", [rx = std::move(a_rx), tx = std::move(b_tx), idle = std::move(idle_rx)]() mutable {
      while (auto v = rx.read()) {
        if (*v % 3 == 0 || *v == 1) tx.write(*v);
      }
      auto [in_tx, in_rx] = kpn::channel<int>(4, "spawned");
      kpn::spawn("late", [tx = std::move(in_tx)]() mutable {
        for (int i = 0; i < 11; ++i) tx.write(i);
      });
      while (in_rx.read()) {
      }
    });
    net.process("sink", [rx = std::move(b_rx)]() mutable {
      while (rx.read()) {
      }
    });
    const kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(report.channels.size() == 4);
    REQUIRE(messages_of(report, "a") == 100);
    REQUIRE(messages_of(report, "b") == 35);
    REQUIRE(messages_of(report, "idle") == 0);
    REQUIRE(messages_of(report, "spawned") == 11);
    REQUIRE(report.messages == 100 + 35 + 0 + 11);
  }
}
