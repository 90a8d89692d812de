#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <kpn.hpp>

#include "schedulers/scheduler_stat.hpp"
#include "spin_for.hpp"

// The idle workers of the policies where a process runs only on its own worker (`local`, Zorro's local
// pools; `gp` and `gp-static`, graph partitioning): they sleep until their own queue fills, and the push
// that fills a sleeping worker's queue from another worker wakes it. (Every other test runs these policies
// too, as part of all_configs(): termination, deadlocks and interrupts with their workers asleep.)

using kpn::test::scheduler_stat;
using kpn::test::spin_for;

namespace {
std::string home_worker_policy() { return GENERATE(as<std::string>{}, "local", "gp", "gp-static"); }
}  // namespace

TEST_CASE("a home-worker policy's idle worker sleeps instead of yielding while another computes",
          "[schedulers][local][gp]") {
  const std::string policy = home_worker_policy();
  CAPTURE(policy);
  kpn::Network net;
  net.process("busy", [] { spin_for(std::chrono::milliseconds(200)); });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = policy}).run(net);
  CHECK(scheduler_stat(r, "sleeps") >= 1);
  CHECK(r.steal_attempts == 0);
}

TEST_CASE("under a home-worker policy a reader and a writer on two workers wake each other's sleeping worker",
          "[schedulers][local][gp]") {
  const std::string policy = home_worker_policy();
  constexpr long kMessages = 5000;
  for (unsigned cpus : {2u, 4u}) {
    CAPTURE(policy, cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<long>(1);
    long sum = 0;
    // Placed apart and kept apart: `local` deals them round-robin, gp gives each its own worker (fewer
    // processes than workers, or two equal chunks of a network whose channels it cannot see yet).
    net.process("writer", [tx = std::move(tx)]() mutable {
      for (long i = 1; i <= kMessages; ++i) tx.write(i);
    });
    net.process("reader", [rx = std::move(rx), &sum]() mutable {
      while (auto v = rx.read()) sum += *v;
    });
    const kpn::RunReport r = kpn::Runtime({.cpus = cpus, .scheduler = policy}).run(net);
    CHECK(sum == kMessages * (kMessages + 1) / 2);
    CHECK(r.cross_worker_messages > 0);
    // Each end blocks at almost every message and is readied by the other worker: its own worker, with
    // nothing else to run, has announced its sleep, and the readying push wakes it.
    CHECK(scheduler_stat(r, "wakeups") >= 1);
  }
}
