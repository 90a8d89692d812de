#include <catch2/catch.hpp>

#include <chrono>

#include <kpn.hpp>

#include "schedulers/scheduler_stat.hpp"
#include "spin_for.hpp"

// The local policy's idle workers (Zorro's local pools): they sleep until their own queue fills, and the
// push that fills a sleeping worker's queue from another worker wakes it. (Every other test runs `local`
// too, as one of all_configs(): termination, deadlocks and interrupts with its workers asleep.)

using kpn::test::scheduler_stat;
using kpn::test::spin_for;

TEST_CASE("local: an idle worker sleeps instead of yielding while another computes", "[schedulers][local]") {
  kpn::Network net;
  net.process("busy", [] { spin_for(std::chrono::milliseconds(200)); });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "local"}).run(net);
  CHECK(scheduler_stat(r, "sleeps") >= 1);
  CHECK(r.steal_attempts == 0);
}

TEST_CASE("local: a reader and a writer on two workers wake each other's sleeping worker for every message",
          "[schedulers][local]") {
  constexpr long kMessages = 5000;
  for (unsigned cpus : {2u, 4u}) {
    CAPTURE(cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<long>(1);
    long sum = 0;
    // Dealt round-robin: the writer on worker 0, the reader on worker 1, where they stay.
    net.process("writer", [tx = std::move(tx)]() mutable {
      for (long i = 1; i <= kMessages; ++i) tx.write(i);
    });
    net.process("reader", [rx = std::move(rx), &sum]() mutable {
      while (auto v = rx.read()) sum += *v;
    });
    const kpn::RunReport r = kpn::Runtime({.cpus = cpus, .scheduler = "local"}).run(net);
    CHECK(sum == kMessages * (kMessages + 1) / 2);
    CHECK(r.cross_worker_messages > 0);
    // Each end blocks at almost every message and is readied by the other worker: its own worker, with
    // nothing else to run, has announced its sleep, and the readying push wakes it.
    CHECK(scheduler_stat(r, "wakeups") >= 1);
  }
}
