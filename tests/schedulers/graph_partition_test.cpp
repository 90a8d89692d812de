// The gp policy at run time: processes run only on their home worker, the initial partition keeps a
// pipeline's neighbours together, pinned processes stay put, homes changed while the network runs
// (migration) lose no message and never run a process twice, and an unbalanced network is repartitioned.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include <kpn.hpp>

#include "runtime/current.hpp"
#include "runtime/process.hpp"
#include "runtime/worker.hpp"
#include "schedulers/graph_partition.hpp"
#include "spin_for.hpp"

using kpn::test::spin_for;

namespace {

using Clock = std::chrono::steady_clock;

// source -> stage[0] -> ... -> stage[stages-1] -> sink; the sink checks order and returns the sum.
// stage i spins work(i) per message.
struct Pipeline {
  kpn::Network net;
  std::shared_ptr<std::atomic<std::int64_t>> sum = std::make_shared<std::atomic<std::int64_t>>(-1);
  std::shared_ptr<std::atomic<bool>> in_order = std::make_shared<std::atomic<bool>>(true);
};

template <class Work>
std::unique_ptr<Pipeline> make_pipeline(int stages, std::int64_t count, std::size_t capacity, Work work) {
  auto p = std::make_unique<Pipeline>();
  auto [tx, rx] = p->net.channel<std::int64_t>(capacity, "source->stage[0]");
  p->net.process("source", [tx = std::move(tx), count]() mutable {
    for (std::int64_t i = 0; i < count; ++i) tx.write(i);
  });
  kpn::Reader<std::int64_t> in = std::move(rx);
  for (int s = 0; s < stages; ++s) {
    auto [out, next] = p->net.channel<std::int64_t>(capacity, "stage[" + std::to_string(s) + "]->");
    p->net.process("stage[" + std::to_string(s) + "]", [in = std::move(in), out = std::move(out), d = work(s)]() mutable {
      while (auto v = in.read()) {
        if (d.count() > 0) spin_for(d);
        out.write(*v + 1);
      }
    });
    in = std::move(next);
  }
  p->net.process("sink", [in = std::move(in), sum = p->sum, in_order = p->in_order, stages]() mutable {
    std::int64_t total = 0, expect = stages;
    while (auto v = in.read()) {
      if (*v != expect++) in_order->store(false);
      total += *v;
    }
    sum->store(total);
  });
  return p;
}

std::int64_t expected_sum(int stages, std::int64_t count) { return count * (count - 1) / 2 + count * stages; }

const kpn::ProcessReport& find(const kpn::RunReport& r, const std::string& name) {
  for (const auto& p : r.process_details) {
    if (p.name == name) return p;
  }
  FAIL("no process " << name);
  throw;
}

}  // namespace

TEST_CASE("under gp-static every process runs only on its home worker", "[schedulers][gp]") {
  for (unsigned cpus : {2u, 4u}) {
    CAPTURE(cpus);
    auto p = make_pipeline(10, 20000, 2, [](int) { return std::chrono::microseconds(0); });
    const auto report = kpn::Runtime({.cpus = cpus, .scheduler = "gp-static"}).run(p->net);
    REQUIRE(p->sum->load() == expected_sum(10, 20000));
    REQUIRE(report.steal_attempts == 0);
    for (const auto& proc : report.process_details) {
      CAPTURE(proc.name);
      REQUIRE(proc.home_worker >= 0);
      REQUIRE(proc.home_worker < static_cast<int>(cpus));
      REQUIRE(proc.last_worker == proc.home_worker);
    }
  }
}

TEST_CASE("gp-static cuts a pipeline once on two workers, so only one channel's messages cross", "[schedulers][gp]") {
  auto p = make_pipeline(8, 10000, 4, [](int) { return std::chrono::microseconds(0); });
  const auto report = kpn::Runtime({.cpus = 2, .scheduler = "gp-static"}).run(p->net);
  REQUIRE(p->sum->load() == expected_sum(8, 10000));
  REQUIRE(report.messages == 9 * 10000);
  REQUIRE(report.cross_worker_messages == 10000);
  REQUIRE(report.cross_worker_share == Approx(1.0 / 9));
}

TEST_CASE("no message crosses workers on one worker, under every policy", "[schedulers][gp]") {
  for (const char* scheduler : {"ws-cur", "ws-last", "gp", "gp-static"}) {
    CAPTURE(scheduler);
    auto p = make_pipeline(4, 5000, 1, [](int) { return std::chrono::microseconds(0); });
    const auto report = kpn::Runtime({.cpus = 1, .scheduler = scheduler}).run(p->net);
    REQUIRE(report.messages == 5 * 5000);
    REQUIRE(report.cross_worker_messages == 0);
  }
}

TEST_CASE("gp keeps a pinned process on the worker it was given", "[schedulers][gp]") {
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(1, "a->b");
  std::atomic<int> a_worker{-1}, b_worker{-1};
  net.process("a", [tx = std::move(tx), &a_worker]() mutable {
    for (int i = 0; i < 1000; ++i) {
      tx.write(i);
      a_worker.store(kpn::current_worker_index());
    }
  }, {.home_worker = 1});
  net.process("b", [rx = std::move(rx), &b_worker]() mutable {
    while (rx.read()) b_worker.store(kpn::current_worker_index());
  }, {.home_worker = 4});  // beyond the worker count: modulo it, worker 0
  const auto report = kpn::Runtime({.cpus = 2, .scheduler = "gp"}).run(net);
  REQUIRE(a_worker.load() == 1);
  REQUIRE(b_worker.load() == 0);
  REQUIRE(find(report, "a").home_worker == 1);
  REQUIRE(find(report, "b").home_worker == 0);
  REQUIRE(report.cross_worker_messages == 1000);
}

TEST_CASE("homes changed at random while processes run, block and queue lose no message", "[schedulers][gp]") {
  // A chaos process moves every live process to a random worker over and over, the way a repartition does
  // (GraphPartitionScheduler::rehome_live_processes), while a pipeline with capacity-1 channels blocks at
  // almost every message.
  for (unsigned cpus : {2u, 4u}) {
    CAPTURE(cpus);
    auto p = make_pipeline(6, 30000, 1, [](int) { return std::chrono::microseconds(0); });
    std::atomic<std::uint64_t> moves{0};
    // Runs until the sink has stored its sum (-1 until then).
    auto policy = std::make_unique<kpn::GraphPartitionScheduler>(kpn::GpTuning{.repartition = false});
    kpn::GraphPartitionScheduler* gp = policy.get();
    p->net.process("chaos", [sum = p->sum, cpus, gp, &moves]() {
      std::mt19937 rng(42);
      while (sum->load() < 0) {
        gp->rehome_live_processes([&](kpn::Process&) {
          moves.fetch_add(1, std::memory_order_relaxed);
          return static_cast<int>(rng() % cpus);
        });
        kpn::yield();
      }
    });
    const auto report = kpn::Runtime({.cpus = cpus}, std::move(policy)).run(p->net);
    CAPTURE(moves.load());
    REQUIRE(p->sum->load() == expected_sum(6, 30000));
    REQUIRE(p->in_order->load());
    REQUIRE(moves.load() > 0);
    REQUIRE(report.messages == 7 * 30000);
  }
}

TEST_CASE("gp repartitions a network whose measured load is unbalanced and moves processes", "[schedulers][gp]") {
  // Unit weights put stages 0-3 on one worker and 4-7 (and the sink) on the other; the first four do all
  // the work, so the second worker idles while the first has queued processes.
  auto p = make_pipeline(8, 3000, 4, [](int s) { return std::chrono::microseconds(s < 4 ? 40 : 0); });
  kpn::GpTuning tuning;
  tuning.window_ms = 2;
  tuning.min_interval_ms = 5;
  kpn::Runtime rt({.cpus = 2}, std::make_unique<kpn::GraphPartitionScheduler>(tuning));
  const auto report = rt.run(p->net);
  REQUIRE(p->sum->load() == expected_sum(8, 3000));
  REQUIRE(p->in_order->load());
  auto stat = [&](const std::string& key) {
    for (const auto& [k, v] : report.scheduler_stats) {
      if (k == key) return v;
    }
    FAIL("no statistic " << key);
    return 0.0;
  };
  CAPTURE(report.to_json());
  REQUIRE(stat("repartitions") >= 1);
  REQUIRE(stat("migrations") >= 1);
  REQUIRE(stat("partition_ms_max") > 0);
}
