#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "runtime/pinning.hpp"
#include "schedulers/places.hpp"
#include "schedulers/priority_run_queue.hpp"
#include "schedulers/scheduler_stat.hpp"
#include "spin_for.hpp"

// The steal-half policy's own promises: thieves visit victims nearest first, take half of a queue and its
// lowest priorities, a worker runs its highest priority first, and idle workers sleep. (Every other test runs
// it too, as one of all_configs(): the Kahn determinism tests, the Zorro menu.)

using kpn::test::scheduler_stat;
using kpn::test::spin_for;

namespace {

// Stand-ins for processes: the queue stores and returns the pointers, never follows them.
struct Fakes {
  std::array<int, 64> storage{};
  kpn::Process* operator[](std::size_t i) { return reinterpret_cast<kpn::Process*>(&storage[i]); }
};

std::vector<std::size_t> group(const kpn::Places& places, std::size_t w, kpn::Place level) {
  const std::size_t l = static_cast<std::size_t>(level);
  const std::size_t begin = l == 0 ? 0 : places.group_end[w][l - 1];
  return {places.victims[w].begin() + static_cast<std::ptrdiff_t>(begin),
          places.victims[w].begin() + static_cast<std::ptrdiff_t>(places.group_end[w][l])};
}

}  // namespace

TEST_CASE("steal-half: a thief visits the same core, then the same cache, package and NUMA node, then the rest",
          "[schedulers][steal-half]") {
  // Two SMT packages of two L3 caches each; 16 workers pinned the way `cores` pins them.
  const auto topo = kpn::CpuTopology::synthetic("pack:2 l3:2 core:2 pu:2");
  const std::vector<int> pus = topo->pin_order(kpn::PinMode::cores);
  REQUIRE(pus == std::vector<int>{0, 8, 2, 10, 4, 12, 6, 14, 1, 9, 3, 11, 5, 13, 7, 15});
  const kpn::Places places = kpn::compute_places(topo.get(), pus);
  // Worker 0 is on P#0: its sibling P#1 is worker 8; P#2-3 share its L3; P#4-7 its package.
  CHECK(group(places, 0, kpn::Place::same_core) == std::vector<std::size_t>{8});
  CHECK(group(places, 0, kpn::Place::same_cache) == std::vector<std::size_t>{2, 10});
  CHECK(group(places, 0, kpn::Place::same_package) == std::vector<std::size_t>{4, 6, 12, 14});
  CHECK(group(places, 0, kpn::Place::same_numa) == std::vector<std::size_t>{1, 3, 5, 7, 9, 11, 13, 15});
  CHECK(group(places, 0, kpn::Place::other).empty());
  // Worker 9 is on P#9, in the other package.
  CHECK(group(places, 9, kpn::Place::same_core) == std::vector<std::size_t>{1});
  CHECK(group(places, 9, kpn::Place::same_cache) == std::vector<std::size_t>{3, 11});
}

TEST_CASE("steal-half: without a topology every other worker is in one group", "[schedulers][steal-half]") {
  const std::vector<int> unpinned(4, -1);
  const kpn::Places places = kpn::compute_places(nullptr, unpinned);
  CHECK(places.victims[2] == std::vector<std::size_t>{0, 1, 3});
  CHECK(group(places, 2, kpn::Place::other) == std::vector<std::size_t>{0, 1, 3});
}

TEST_CASE("steal-half: a thief takes half of a victim's queue, rounded up", "[schedulers][steal-half]") {
  Fakes p;
  std::array<kpn::PriorityRunQueue::Entry, 64> batch{};
  for (std::size_t queued : {1u, 2u, 7u, 10u}) {
    CAPTURE(queued);
    kpn::PriorityRunQueue q;
    for (std::size_t i = 0; i < queued; ++i) q.push(p[i], 0);
    const std::size_t took = q.steal_half(batch.data(), batch.size());
    CHECK(took == queued - queued / 2);
    CHECK(q.size_hint() == queued / 2);
  }
  kpn::PriorityRunQueue empty;
  CHECK(empty.steal_half(batch.data(), batch.size()) == 0);
}

TEST_CASE("steal-half: a thief takes the lowest priorities first, the youngest of a level first", "[schedulers][steal-half]") {
  Fakes p;
  kpn::PriorityRunQueue q;
  q.push(p[0], 5);
  q.push(p[1], 1);
  q.push(p[2], 7);
  q.push(p[3], 1);
  q.push(p[4], 3);
  q.push(p[5], 1);
  std::array<kpn::PriorityRunQueue::Entry, 8> batch{};
  REQUIRE(q.steal_half(batch.data(), batch.size()) == 3);
  CHECK(batch[0].process == p[5]);
  CHECK(batch[1].process == p[3]);
  CHECK(batch[2].process == p[1]);
  CHECK(batch[2].priority == 1);
  // The victim keeps its higher priorities.
  CHECK(q.pop_highest() == p[2]);
  CHECK(q.pop_highest() == p[0]);
  CHECK(q.pop_highest() == p[4]);
  CHECK(q.pop_highest() == nullptr);
}

TEST_CASE("steal-half: a worker's queue runs its highest priority first, oldest first within one", "[schedulers][steal-half]") {
  Fakes p;
  kpn::PriorityRunQueue q;
  q.push(p[0], 0);
  q.push(p[1], 4);
  q.push(p[2], 0);
  q.push(p[3], 4);
  q.push(p[4], 7);
  const std::vector<kpn::Process*> expected{p[4], p[1], p[3], p[0], p[2]};
  std::vector<kpn::Process*> got;
  while (kpn::Process* next = q.pop_highest()) got.push_back(next);
  CHECK(got == expected);
}

TEST_CASE("steal-half: on one worker, processes spawned together run in priority order", "[schedulers][steal-half]") {
  std::mutex m;
  std::vector<int> ran;
  kpn::Network net;
  net.process("parent", [&] {
    int i = 0;
    for (int prio : {1, 6, 0, 3, 6}) {
      kpn::spawn("child" + std::to_string(i++),
                 [&, prio] {
                   std::lock_guard g(m);
                   ran.push_back(prio);
                 },
                 {.priority = prio});
    }
  });
  kpn::Runtime({.cpus = 1, .scheduler = "steal-half"}).run(net);
  CHECK(ran == std::vector<int>{6, 6, 3, 1, 0});
}

TEST_CASE("steal-half: an idle worker sleeps instead of spinning while another computes", "[schedulers][steal-half]") {
  kpn::Network net;
  net.process("busy", [] { spin_for(std::chrono::milliseconds(200)); });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "steal-half"}).run(net);
  CHECK(scheduler_stat(r, "sleeps") >= 1);
  // A spinning thief makes about a million attempts in 200 ms; a sleeping one a few rounds.
  CHECK(r.steal_attempts < 1000);
}

TEST_CASE("steal-half: processes queued behind a computing process are stolen, each steal counted at one place",
          "[schedulers][steal-half]") {
  constexpr int kChildren = 64;
  std::atomic<int> done{0};
  std::atomic<bool> gave_up{false};
  kpn::Network net;
  net.process("parent", [&] {
    for (int i = 0; i < kChildren; ++i) {
      kpn::spawn("child" + std::to_string(i), [&] {
        spin_for(std::chrono::microseconds(100));
        ++done;
      });
    }
    // The parent never blocks: its children can only run on the other worker, by being stolen.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (done.load() < kChildren) {
      if (std::chrono::steady_clock::now() > deadline) {
        gave_up = true;
        break;
      }
    }
  });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "steal-half"}).run(net);
  REQUIRE_FALSE(gave_up.load());
  // Every child was stolen exactly once; the parent too, if the other worker started first.
  const double stolen = scheduler_stat(r, "stolen_processes");
  CHECK(stolen >= kChildren);
  CHECK(stolen <= kChildren + 1);
  const double steals = scheduler_stat(r, "steals");
  CHECK(steals >= 1);
  CHECK(steals <= kChildren);
  CHECK(steals == static_cast<double>(r.steals));
  const double by_place = scheduler_stat(r, "steals_same_core") + scheduler_stat(r, "steals_same_cache") + scheduler_stat(r, "steals_same_package") +
                          scheduler_stat(r, "steals_same_numa") + scheduler_stat(r, "steals_other");
  CHECK(by_place == steals);
}
