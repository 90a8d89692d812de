#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <kpn.hpp>

#include "support.hpp"

using Catch::Matchers::Contains;

namespace {

// Burns about `ms` milliseconds of CPU (the amount only needs to be clearly more than nothing).
void spin_for(std::chrono::milliseconds ms) {
  const auto until = std::chrono::steady_clock::now() + ms;
  volatile unsigned long sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1;
}

const kpn::ProcessReport* find(const kpn::RunReport& r, const std::string& name) {
  for (const auto& p : r.process_details) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the report lists every process by name with the CPU time it used", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    net.process("spinner", [] { spin_for(std::chrono::milliseconds(2)); });
    net.process("spawner", [] { kpn::spawn("spawned", [] {}); });
    net.process("idle", [] {});
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(report.process_details.size() == 4);
    for (const char* name : {"spinner", "spawner", "spawned", "idle"}) {
      CAPTURE(name);
      const kpn::ProcessReport* p = find(report, name);
      REQUIRE(p != nullptr);
      REQUIRE(p->switches >= 1);
      REQUIRE(p->last_worker >= 0);
      REQUIRE(p->last_worker < static_cast<int>(cfg.cpus));
    }
    REQUIRE(find(report, "spinner")->cpu_s > 0);
  }
}

TEST_CASE("the report shows workers busy while they ran processes", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    net.process("spinner", [] { spin_for(std::chrono::milliseconds(2)); });
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(report.workers.size() == cfg.cpus);
    double busy = 0;
    std::uint64_t switches = 0;
    for (const auto& w : report.workers) {
      REQUIRE(w.busy_s >= 0);
      busy += w.busy_s;
      switches += w.context_switches;
    }
    REQUIRE(busy > 0);
    REQUIRE(switches >= 1);
    REQUIRE(report.context_switches == switches);
    REQUIRE(report.wall_s > 0);
  }
}

TEST_CASE("the report counts the messages of every channel", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(4, "listed");
    net.process("producer", [tx = std::move(tx)]() mutable {
      for (int i = 0; i < 100; ++i) tx.write(i);
      // A channel made inside a process is listed in the same report.
      auto [inner_tx, inner_rx] = kpn::channel<int>(8, "made-inside");
      for (int i = 0; i < 5; ++i) inner_tx.write(i);
      for (int i = 0; i < 5; ++i) inner_rx.read();
    });
    net.process("consumer", [rx = std::move(rx)]() mutable {
      while (rx.read()) {
      }
    });
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(report.messages == 105);
    bool listed = false, inside = false;
    for (const auto& c : report.channels) {
      if (c.name == "listed") {
        listed = true;
        REQUIRE(c.messages == 100);
        REQUIRE(c.capacity == 4);
      }
      if (c.name == "made-inside") {
        inside = true;
        REQUIRE(c.messages == 5);
      }
    }
    REQUIRE(listed);
    REQUIRE(inside);
  }
}

TEST_CASE("the JSON report has the totals and the workers", "[runtime]") {
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(1, "a \"quoted\" name");
  net.process("producer", [tx = std::move(tx)]() mutable { tx.write(1); });
  net.process("consumer", [rx = std::move(rx)]() mutable { rx.read(); });
  kpn::RunReport report = kpn::Runtime({.cpus = 2, .scheduler = "ws-last"}).run(net);
  const std::string json = report.to_json();
  CAPTURE(json);
  REQUIRE(json.front() == '{');
  REQUIRE(json.back() == '}');
  for (const char* key : {"scheduler", "cpus", "wall_s", "processes", "messages", "context_switches",
                          "steal_attempts", "steals", "steal_attempts_per_s", "workers"}) {
    CAPTURE(key);
    std::string quoted = "\"";  // built with += : operator+ on a literal trips a GCC 12 -Wrestrict false positive
    quoted += key;
    quoted += "\":";
    REQUIRE_THAT(json, Contains(quoted));
  }
  REQUIRE_THAT(json, Contains("\"scheduler\":\"ws-last\""));
  REQUIRE_THAT(json, Contains("\"cpus\":2"));
  REQUIRE_THAT(json, Contains("\"processes\":2"));
  REQUIRE_THAT(json, Contains("\"messages\":1"));
  const std::string detailed = report.to_json(true);
  CAPTURE(detailed);
  REQUIRE_THAT(detailed, Contains("\"process_details\":") && Contains("\"name\":\"producer\""));
  REQUIRE_THAT(detailed, Contains("\"a \\\"quoted\\\" name\""));
}
