#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

TEST_CASE("two processes that yield on one worker take turns", "[runtime]") {
  constexpr int kTurns = 50;
  for (const char* scheduler : {"ws-cur", "ws-last"}) {
    CAPTURE(scheduler);
    std::mutex mutex;
    std::string trace;  // guarded by mutex
    kpn::Network net;
    for (const char* who : {"A", "B"}) {
      net.process(who, [who, &mutex, &trace] {
        for (int i = 0; i < kTurns; ++i) {
          {
            std::lock_guard g(mutex);
            trace += who;
          }
          kpn::yield();  // to the back of the worker's queue, behind the other one
        }
      });
    }
    kpn::Runtime({.cpus = 1, .scheduler = scheduler}).run(net);
    std::string expected;
    for (int i = 0; i < kTurns; ++i) expected += "AB";
    REQUIRE(trace == expected);
  }
}

TEST_CASE("yield outside a process just yields the thread", "[runtime]") {
  REQUIRE_FALSE(kpn::in_process());
  REQUIRE_NOTHROW(kpn::yield());
}

TEST_CASE("a process knows its name, id and worker", "[runtime]") {
  struct Seen {
    std::string name;
    kpn::ProcessId id = 0;
    int worker = -2;
    bool in_process = false;
  };
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    std::vector<Seen> seen(4);  // element i written by process i only, read after run()
    kpn::Network net;
    for (std::size_t i = 0; i < seen.size(); ++i) {
      net.process("proc-" + std::to_string(i), [out = &seen[i]] {
        out->name = kpn::this_process::name();
        out->id = kpn::this_process::id();
        out->worker = kpn::this_process::worker();
        out->in_process = kpn::in_process();
      });
    }
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    for (std::size_t i = 0; i < seen.size(); ++i) {
      CAPTURE(i);
      REQUIRE(seen[i].in_process);
      REQUIRE(seen[i].name == "proc-" + std::to_string(i));
      REQUIRE(seen[i].id != 0);
      REQUIRE(seen[i].worker >= 0);
      REQUIRE(seen[i].worker < static_cast<int>(cfg.cpus));
      for (std::size_t j = 0; j < i; ++j) REQUIRE(seen[i].id != seen[j].id);
      // The report knows the process by the same id and name.
      bool listed = false;
      for (const auto& p : report.process_details) listed |= p.id == seen[i].id && p.name == seen[i].name;
      REQUIRE(listed);
    }
  }
}

TEST_CASE("a spawned process knows its own name and id", "[runtime]") {
  std::string child_name;
  kpn::ProcessId child_id = 0, returned_id = 0, parent_id = 0;
  kpn::Network net;
  net.process("parent", [&] {
    parent_id = kpn::this_process::id();
    returned_id = kpn::spawn("child", [&] {
      child_name = kpn::this_process::name();
      child_id = kpn::this_process::id();
    });
  });
  kpn::Runtime({.cpus = 2, .scheduler = "ws-last"}).run(net);
  REQUIRE(child_name == "child");
  REQUIRE(child_id == returned_id);
  REQUIRE(child_id != parent_id);
}

TEST_CASE("asking who the calling process is outside a process throws logic_error", "[runtime]") {
  REQUIRE_THROWS_AS(kpn::this_process::name(), std::logic_error);
  REQUIRE_THROWS_AS(kpn::this_process::id(), std::logic_error);
  REQUIRE_THROWS_AS(kpn::this_process::worker(), std::logic_error);
}

TEST_CASE("spawn outside a process throws logic_error", "[runtime]") {
  std::atomic<bool> ran{false};
  REQUIRE_THROWS_AS(kpn::spawn("orphan", [&ran] { ran = true; }), std::logic_error);
  REQUIRE_FALSE(ran.load());
}
