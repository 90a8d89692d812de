// ProcessOptions::priority: its range is checked where a process is declared or spawned.

#include <catch2/catch.hpp>

#include <stdexcept>

#include <kpn.hpp>

TEST_CASE("a priority outside 0 to 7 is refused when the process is declared", "[runtime][priority]") {
  kpn::Network net;
  CHECK_NOTHROW(net.process("lowest", [] {}, {.priority = kpn::config::kMinPriority}));
  CHECK_NOTHROW(net.process("highest", [] {}, {.priority = kpn::config::kMaxPriority}));
  CHECK_THROWS_WITH(net.process("too-high", [] {}, {.priority = 8}),
                    Catch::Matchers::Contains("process 'too-high': priority 8 is outside [0, 7]"));
  CHECK_THROWS_AS(net.process("negative", [] {}, {.priority = -1}), std::invalid_argument);
}

TEST_CASE("spawning a process with a priority out of range fails the spawner", "[runtime][priority]") {
  kpn::Network net;
  net.process("parent", [] { kpn::spawn("child", [] {}, {.priority = 99}); });
  CHECK_THROWS_AS(kpn::Runtime({.cpus = 1}).run(net), kpn::ProcessFailed);
}
