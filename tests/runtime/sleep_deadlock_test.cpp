#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "runtime/tracked.hpp"
#include "runtime/deadlocked_pair.hpp"
#include "support.hpp"

// Deadlock detection beside timed waits: a process that sleeps (or waits with a deadline) will run again,
// so processes waiting for it are not deadlocked; a true cycle of untimed waits beside it still is.

using namespace std::chrono_literals;

TEST_CASE("processes blocked on a sleeping process are not a deadlock", "[runtime][timers][deadlock]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [ab_tx, ab_rx] = net.channel<int>(1, "a->b");
    auto [bc_tx, bc_rx] = net.channel<int>(1, "b->c");
    long received = 0;  // written by c, read after run()
    // Everyone but `a` is blocked on a channel for the whole of a's sleeps: the run is quiescent but for `a`.
    net.process("a", [out = std::move(ab_tx)]() mutable {
      for (int i = 0; i < 3; ++i) {
        kpn::sleep_for(20ms);
        out.write(i);
      }
    });
    net.process("b", [in = std::move(ab_rx), out = std::move(bc_tx)]() mutable {
      while (auto v = in.read()) out.write(*v);
    });
    net.process("c", [in = std::move(bc_rx), &received]() mutable {
      while (in.read()) ++received;
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler, .max_capacity = 1}).run(net);
    CHECK(received == 3);
  }
}

TEST_CASE("a true deadlock beside a sleeping process is still reported", "[runtime][timers][deadlock]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::test::Census census;
    kpn::Network net;
    kpn::test::add_deadlocked_pair(net, "a", "b");
    // Never quiescent while it sleeps: only the local scan can see the cycle, and it must skip the sleeper.
    net.process("sleeper", [probe = kpn::test::Tracked(census)] { kpn::sleep_for(1h); });
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("the deadlock was not reported");
    } catch (const kpn::DeadlockError& e) {
      CHECK(kpn::test::sorted_cycle(e) == std::vector<std::string>{"a", "b"});
      for (const auto& b : e.blocked()) CHECK(b.process != "sleeper");
    }
    CHECK(census.alive() == 0);
  }
}

TEST_CASE("a cycle in which one process reads with a deadline is not a deadlock", "[runtime][timers][deadlock]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [ab_tx, ab_rx] = net.channel<int>(1, "a->b");
    auto [ba_tx, ba_rx] = net.channel<int>(1, "b->a");
    int timeouts = 0;  // written by a, read after run()
    // `a` waits for a message `b` sends only after hearing from `a`: a cycle of waits that the timeout breaks.
    net.process("a", [out = std::move(ab_tx), in = std::move(ba_rx), &timeouts]() mutable {
      while (in.read_for(20ms).timed_out()) {
        if (++timeouts == 2) out.write(1);
      }
    });
    net.process("b", [in = std::move(ab_rx), out = std::move(ba_tx)]() mutable {
      in.read();
      out.write(2);
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler, .local_deadlock_scan_ms = 1}).run(net);
    CHECK(timeouts == 2);
  }
}
