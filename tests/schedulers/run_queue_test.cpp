#include <catch2/catch.hpp>

#include <array>
#include <set>
#include <vector>

#include "runtime/config.hpp"
#include "schedulers/run_queue.hpp"

// The run-queue's batch takes for thieves: the older half (pop_front_half), and the batch that prefers
// some entries (pop_preferred_half, handoff's neighbours first).

namespace {

// Stand-ins for processes: the queue stores and returns the pointers, never follows them.
struct Fakes {
  std::array<int, 64> storage{};
  kpn::Process* operator[](std::size_t i) { return reinterpret_cast<kpn::Process*>(&storage[i]); }
};

// Pops everything left, front first.
std::vector<kpn::Process*> drain(kpn::RunQueue& q) {
  std::vector<kpn::Process*> out;
  while (kpn::Process* p = q.pop_front()) out.push_back(p);
  return out;
}

}  // namespace

TEST_CASE("run queue: a preferring thief takes the preferred entries among the oldest, up to half, and leaves the rest in order",
          "[schedulers][run-queue]") {
  Fakes f;
  kpn::RunQueue q;
  for (std::size_t i = 0; i < 6; ++i) q.push_back(f[i]);
  const std::set<kpn::Process*> wanted{f[1], f[3], f[4], f[5]};
  std::array<kpn::Process*, 8> out{};
  // Half of 6 is 3; entries 1, 3 and 4 are the preferred among the oldest 5 (5 is beyond the scan).
  const std::size_t got = q.pop_preferred_half(out.data(), out.size(), 5, [&](kpn::Process* p) { return wanted.count(p) > 0; });
  REQUIRE(got == 3);
  CHECK(std::vector<kpn::Process*>(out.begin(), out.begin() + 3) == std::vector<kpn::Process*>{f[1], f[3], f[4]});
  CHECK(q.size_hint() == 3);
  CHECK(drain(q) == std::vector<kpn::Process*>{f[0], f[2], f[5]});
}

TEST_CASE("run queue: a preferring thief that finds no preferred entry takes the older half", "[schedulers][run-queue]") {
  Fakes f;
  kpn::RunQueue q;
  for (std::size_t i = 0; i < 5; ++i) q.push_back(f[i]);
  std::array<kpn::Process*, 8> out{};
  const std::size_t got = q.pop_preferred_half(out.data(), out.size(), 4, [](kpn::Process*) { return false; });
  REQUIRE(got == 3);  // 5 - 5 / 2, as pop_front_half
  CHECK(std::vector<kpn::Process*>(out.begin(), out.begin() + 3) == std::vector<kpn::Process*>{f[0], f[1], f[2]});
  CHECK(drain(q) == std::vector<kpn::Process*>{f[3], f[4]});
}

TEST_CASE("run queue: a preferring thief takes a lone entry, preferred or not, and nothing from an empty queue",
          "[schedulers][run-queue]") {
  Fakes f;
  kpn::RunQueue q;
  std::array<kpn::Process*, 4> out{};
  CHECK(q.pop_preferred_half(out.data(), out.size(), 4, [](kpn::Process*) { return true; }) == 0);
  q.push_back(f[7]);
  REQUIRE(q.pop_preferred_half(out.data(), out.size(), 4, [](kpn::Process*) { return false; }) == 1);
  CHECK(out[0] == f[7]);
  CHECK(q.size_hint() == 0);
}

TEST_CASE("run queue: a preferring thief's batch keeps the queue whole across its ring's wrap-around",
          "[schedulers][run-queue]") {
  Fakes f;
  kpn::RunQueue q;
  // Move the ring's head to 6 entries before the end of its storage (kRunQueueInitialCapacity, 256, never
  // grown here), so that the removals shift entries across the wrap.
  static_assert(kpn::config::kRunQueueInitialCapacity == 256);
  for (std::size_t round = 0; round < 5; ++round) {
    for (std::size_t i = 0; i < 50; ++i) q.push_back(f[i]);
    drain(q);
  }
  for (std::size_t i = 0; i < 10; ++i) q.push_back(f[i]);
  std::array<kpn::Process*, 8> out{};
  const std::size_t got = q.pop_preferred_half(out.data(), out.size(), 10, [&](kpn::Process* p) {
    return p == f[2] || p == f[6] || p == f[9];
  });
  REQUIRE(got == 3);
  CHECK(std::vector<kpn::Process*>(out.begin(), out.begin() + 3) == std::vector<kpn::Process*>{f[2], f[6], f[9]});
  CHECK(drain(q) == std::vector<kpn::Process*>{f[0], f[1], f[3], f[4], f[5], f[7], f[8]});
}

TEST_CASE("run queue: a preferring thief takes at most its batch's room", "[schedulers][run-queue]") {
  Fakes f;
  kpn::RunQueue q;
  for (std::size_t i = 0; i < 20; ++i) q.push_back(f[i]);
  std::array<kpn::Process*, 2> out{};
  CHECK(q.pop_preferred_half(out.data(), out.size(), 20, [](kpn::Process*) { return true; }) == 2);
  CHECK(q.pop_preferred_half(out.data(), out.size(), 20, [](kpn::Process*) { return false; }) == 2);
  CHECK(q.size_hint() == 16);
}

TEST_CASE("run queue: processes that have run are handed out before fresh ones, each kind in its order",
          "[schedulers][run-queue]") {
  Fakes f;
  kpn::RunQueue q;
  q.push_back_fresh(f[0]);
  q.push_back(f[1]);
  q.push_back_fresh(f[2]);
  q.push_back(f[3]);
  CHECK(q.size_hint() == 4);
  CHECK(drain(q) == std::vector<kpn::Process*>{f[1], f[3], f[0], f[2]});
}

TEST_CASE("run queue: a fresh process gets out after kFreshAfter started ones in a row, however many keep coming",
          "[schedulers][run-queue]") {
  // Two started processes that keep coming back (a ping-pong pair) and one fresh process behind them.
  Fakes f;
  kpn::RunQueue q;
  q.push_back_fresh(f[9]);
  q.push_back(f[0]);
  q.push_back(f[1]);
  unsigned pops = 0;
  kpn::Process* p = nullptr;
  while ((p = q.pop_front()) != f[9]) {
    REQUIRE(pops <= kpn::config::kFreshAfter);
    ++pops;
    q.push_back(p);
  }
  CHECK(pops == kpn::config::kFreshAfter);
}

TEST_CASE("run queue: a thief's older half takes the started processes before the fresh ones",
          "[schedulers][run-queue]") {
  Fakes f;
  kpn::RunQueue q;
  for (std::size_t i = 0; i < 4; ++i) q.push_back_fresh(f[i]);
  q.push_back(f[10]);
  q.push_back(f[11]);
  std::array<kpn::Process*, 8> out{};
  // Half of 6 is 3: both started ones, then the oldest fresh one.
  const std::size_t got = q.pop_front_half(out.data(), out.size());
  REQUIRE(got == 3);
  CHECK(std::vector<kpn::Process*>(out.begin(), out.begin() + 3) == std::vector<kpn::Process*>{f[10], f[11], f[0]});
  CHECK(drain(q) == std::vector<kpn::Process*>{f[1], f[2], f[3]});
}

TEST_CASE("run queue: a start put back stays first among the fresh ones, and only started processes pop as such",
          "[schedulers][run-queue]") {
  Fakes f;
  kpn::RunQueue q;
  q.push_back_fresh(f[0]);
  q.push_back_fresh(f[1]);
  kpn::Process* first = q.pop_front();
  REQUIRE(first == f[0]);
  CHECK(q.pop_front_started() == nullptr);
  q.put_back_fresh(first);
  q.push_back(f[5]);
  CHECK(q.pop_front_started() == f[5]);
  CHECK(q.pop_front_started() == nullptr);
  CHECK(drain(q) == std::vector<kpn::Process*>{f[0], f[1]});
}

TEST_CASE("run queue: a turned start order hands out fresh processes newest first, puts a start back there, and leaves thieves the oldest",
          "[schedulers][run-queue]") {
  Fakes f;
  kpn::RunQueue q;
  for (std::size_t i = 0; i < 6; ++i) q.push_back_fresh(f[i]);
  q.turn_fresh_order();
  kpn::Process* newest = q.pop_front();
  REQUIRE(newest == f[5]);
  q.put_back_fresh(newest);
  CHECK(q.pop_front() == f[5]);
  CHECK(q.pop_front() == f[4]);
  // A thief's batch takes the front: the oldest, as before the turn.
  std::array<kpn::Process*, 8> out{};
  REQUIRE(q.pop_front_half(out.data(), out.size()) == 2);
  CHECK(std::vector<kpn::Process*>(out.begin(), out.begin() + 2) == std::vector<kpn::Process*>{f[0], f[1]});
  // Turned again, the owner takes the oldest first.
  q.turn_fresh_order();
  CHECK(drain(q) == std::vector<kpn::Process*>{f[2], f[3]});
}
