// The process table (runtime/process_table.hpp) is split in one shard per worker, and workers reserve
// process ids in blocks (Worker::reserve_ids): what a user sees of both must not change, the report's
// count and order, cancellation by id, and the live count.

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <kpn.hpp>

#include "support.hpp"

namespace {

// Under a sanitizer a spawn and its stack switches cost far more: fewer children, still more than one block of
// reserved ids (config::kWorkerIdBlock) per parent.
constexpr int kParents = 4;
constexpr int kChildrenEach = kpn::test::full_or_sanitized(300, 100);
constexpr int kFinishingAtOnce = kpn::test::full_or_sanitized(2000, 500);

}  // namespace

TEST_CASE("processes spawned on every worker at once are each reported once, in id order", "[runtime][table]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    std::atomic<int> ran{0};
    kpn::Network net;
    for (int i = 0; i < kParents; ++i) {
      net.process("parent-" + std::to_string(i), [&] {
        for (int j = 0; j < kChildrenEach; ++j) {
          kpn::spawn("child", [&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
          if (j % 16 == 0) kpn::yield();
        }
      });
    }
    const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(ran.load() == kParents * kChildrenEach);
    const std::uint64_t expected = kParents + kParents * kChildrenEach;
    CHECK(r.processes == expected);
    REQUIRE(r.process_details.size() == expected);
    std::set<kpn::ProcessId> ids;
    for (std::size_t i = 0; i < r.process_details.size(); ++i) {
      ids.insert(r.process_details[i].id);
      if (i > 0) CHECK(r.process_details[i - 1].id < r.process_details[i].id);
    }
    CHECK(ids.size() == expected);
    CHECK(ids.count(0) == 0);
  }
}

TEST_CASE("an id a worker reserved but never gave is unknown to kpn::cancel", "[runtime][table][cancel]") {
  kpn::ProcessId child = 0;
  std::string unknown;
  std::size_t cancelled_finished = 99;
  kpn::Network net;
  net.process("parent", [&] {
    child = kpn::spawn("child", [] {});
    // The next id of the parent's worker's block: reserved, never given.
    try {
      kpn::cancel(child + 1);
    } catch (const std::invalid_argument& e) {
      unknown = e.what();
    }
    while ((cancelled_finished = kpn::cancel(child)) != 0) kpn::yield();  // known: 0 once it has finished
  });
  kpn::Runtime({.cpus = 1}).run(net);
  CHECK(child != 0);
  CHECK_THAT(unknown, Catch::Matchers::Contains(std::to_string(child + 1)));
  CHECK(cancelled_finished == 0);
}

TEST_CASE("the live count falls as spawned processes finish, while their worker stays busy", "[runtime][table]") {
  // The worker owes the active count the decrements of the children's exits until it runs out of work
  // (Worker::owe_deactivation), and the parent keeps it busy; the live count must not wait for that.
  kpn::Runtime rt({.cpus = 1});
  std::atomic<bool> seen{false};
  std::atomic<int> ran{0};
  kpn::Network net;
  net.process("parent", [&] {
    for (int j = 0; j < 100; ++j) kpn::spawn("child", [&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
    while (!seen.load()) kpn::yield();
  });
  std::thread watcher([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < give_up) {
      if (ran.load() == 100 && rt.live_processes() == 1) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    seen.store(true);
  });
  const kpn::RunReport r = rt.run(net);
  watcher.join();
  CHECK(ran.load() == 100);
  CHECK(r.processes == 101);
  CHECK(rt.live_processes() == 0);
}

TEST_CASE("a network of processes that finish at once ends when the last one does, its spawns settling the exits owed", "[runtime][table]") {
  // Children that finish at once leave their worker owing, and the next spawn settles that debt instead
  // of raising the active count: the network must still end exactly when the last process does, on
  // every policy and worker count.
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    std::atomic<int> ran{0};
    kpn::Network net;
    net.process("chainer", [&] {
      for (int j = 0; j < kFinishingAtOnce; ++j) {
        kpn::spawn("child", [&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
      }
    });
    const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(ran.load() == kFinishingAtOnce);
    CHECK(r.processes == static_cast<std::uint64_t>(kFinishingAtOnce) + 1);
  }
}
