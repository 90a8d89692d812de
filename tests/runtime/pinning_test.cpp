// Where workers are pinned (runtime/pinning.hpp), on synthetic hwloc machines: the order is computed from
// the topology alone, so it is checked without binding any thread (a synthetic PU need not exist).

#include <catch2/catch.hpp>

#include <sched.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "runtime/pinning.hpp"

using kpn::CpuTopology;
using kpn::PinMode;
using kpn::Place;

TEST_CASE("cores mode pins one worker per physical core before any hyperthread sibling", "[runtime][pinning]") {
  // Core 0 holds P#0 and P#2, core 1 holds P#1 and P#3.
  const auto topo = CpuTopology::synthetic("pack:1 core:2 pu:2(indexes=0,2,1,3)");
  CHECK(topo->pin_order(PinMode::cores) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("pus mode keeps hwloc's logical order, siblings together", "[runtime][pinning]") {
  const auto topo = CpuTopology::synthetic("pack:1 core:2 pu:2(indexes=0,2,1,3)");
  CHECK(topo->pin_order(PinMode::pus) == std::vector<int>{0, 2, 1, 3});
}

TEST_CASE("none mode pins no worker", "[runtime][pinning]") {
  const auto topo = CpuTopology::synthetic("pack:1 core:2 pu:2");
  CHECK(topo->pin_order(PinMode::none).empty());
}

TEST_CASE("cores mode deals the cores of two packages in turn, then their siblings", "[runtime][pinning]") {
  const auto topo = CpuTopology::synthetic("pack:2 core:4 pu:2");
  CHECK(topo->pin_order(PinMode::cores) == std::vector<int>{0, 8, 2, 10, 4, 12, 6, 14, 1, 9, 3, 11, 5, 13, 7, 15});
}

TEST_CASE("cores mode deals workers to the NUMA nodes in turn, so two workers use two nodes", "[runtime][pinning]") {
  // One package split into two NUMA nodes (P#0-1 and P#2-3).
  const auto topo = CpuTopology::synthetic("pack:1 numa:2 core:2 pu:1");
  REQUIRE(topo->numa_nodes() == 2);
  CHECK(topo->pin_order(PinMode::cores) == std::vector<int>{0, 2, 1, 3});
}

TEST_CASE("a synthetic topology reports its packages, NUMA nodes, cores and PUs", "[runtime][pinning]") {
  const auto topo = CpuTopology::synthetic("numa:2 pack:1 core:2 pu:2");
  CHECK(topo->packages() == 2);
  CHECK(topo->numa_nodes() == 2);
  CHECK(topo->cores() == 4);
  CHECK(topo->total_pus() == 8);
  CHECK(topo->allowed_pus().size() == 8);
}

TEST_CASE("place_of ranks two PUs by the nearest thing they share", "[runtime][pinning]") {
  // Two NUMA nodes of two packages each; a package has two L3 caches of two cores of two PUs.
  const auto topo = CpuTopology::synthetic("numa:2 pack:2 l3:2 core:2 pu:2");
  CHECK(topo->place_of(0, 0) == Place::same_core);
  CHECK(topo->place_of(0, 1) == Place::same_core);
  CHECK(topo->place_of(0, 2) == Place::same_cache);
  CHECK(topo->place_of(0, 4) == Place::same_package);
  CHECK(topo->place_of(0, 8) == Place::same_numa);
  CHECK(topo->place_of(0, 16) == Place::other);
  CHECK(topo->place_of(0, 1000) == Place::other);  // a PU the machine does not have
}

TEST_CASE("a synthetic description hwloc rejects is an invalid argument", "[runtime][pinning]") {
  CHECK_THROWS_AS(CpuTopology::synthetic("pack:two core:x"), std::invalid_argument);
}

TEST_CASE("a synthetic machine never binds a thread", "[runtime][pinning]") {
  const auto topo = CpuTopology::synthetic("pack:1 core:2 pu:1");
  CHECK_FALSE(topo->pin_current_thread(0));
}

TEST_CASE("pin modes are named cores, pus and none", "[runtime][pinning]") {
  for (PinMode m : {PinMode::cores, PinMode::pus, PinMode::none}) CHECK(kpn::parse_pin_mode(kpn::to_string(m)) == m);
  CHECK_FALSE(kpn::parse_pin_mode("core").has_value());
}

namespace {
kpn::RunReport run_trivial(PinMode pin, unsigned cpus) {
  kpn::Network net;
  net.process("p", [] {});
  return kpn::Runtime({.cpus = cpus, .pin = pin}).run(net);
}
}  // namespace

TEST_CASE("a run reports the machine, the pin mode and the PU of each worker", "[runtime][pinning]") {
  const CpuTopology machine;
  SECTION("cores") {
    const kpn::RunReport r = run_trivial(PinMode::cores, 2);
    const std::vector<int> order = machine.pin_order(PinMode::cores);
    CHECK(r.topology.pin == "cores");
    CHECK(r.topology.worker_pus == std::vector<int>{order[0], order[1 % order.size()]});
    CHECK(r.workers[1].pu == r.topology.worker_pus[1]);
    CHECK(r.topology.pus == machine.total_pus());
    CHECK(r.topology.cores == machine.cores());
    CHECK(r.topology.packages == machine.packages());
    CHECK(r.topology.numa_nodes == machine.numa_nodes());
    CHECK_THAT(r.to_json(), Catch::Matchers::Contains("\"topology\":{\"pin\":\"cores\","));
    CHECK_THAT(r.summary(), Catch::Matchers::Contains("pin cores"));
  }
  SECTION("pus") {
    const kpn::RunReport r = run_trivial(PinMode::pus, 2);
    const std::vector<int>& order = machine.allowed_pus();
    CHECK(r.topology.pin == "pus");
    CHECK(r.topology.worker_pus == std::vector<int>{order[0], order[1 % order.size()]});
  }
  SECTION("none") {
    const kpn::RunReport r = run_trivial(PinMode::none, 2);
    CHECK(r.topology.pin == "none");
    CHECK(r.topology.worker_pus == std::vector<int>{-1, -1});
    CHECK(r.workers[0].pu == -1);
  }
}

TEST_CASE("the machine's topology is discovered once, however many runtimes a program makes", "[runtime][pinning]") {
  for (int i = 0; i < 3; ++i) {
    (void)run_trivial(PinMode::cores, 2);
    const CpuTopology machine;
  }
  CHECK(CpuTopology::machine_loads() == 1);
}

TEST_CASE("a topology made after the program's binding changed sees the new binding", "[runtime][pinning]") {
  const CpuTopology before;
  if (before.allowed_pus().size() < 2) {
    WARN("one PU: nothing to narrow the binding to");
    return;
  }
  // Only this thread exists here (ctest runs each case in a process of its own, and a run joins its threads),
  // so its binding is the program's.
  cpu_set_t all;
  REQUIRE(::sched_getaffinity(0, sizeof all, &all) == 0);
  const int second = before.allowed_pus()[1];
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(second, &one);
  REQUIRE(::sched_setaffinity(0, sizeof one, &one) == 0);
  const CpuTopology after;
  REQUIRE(::sched_setaffinity(0, sizeof all, &all) == 0);
  CHECK(after.allowed_pus() == std::vector<int>{second});
  CHECK(after.total_pus() == before.total_pus());
  CHECK(CpuTopology::machine_loads() == 1);
}
