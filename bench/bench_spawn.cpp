// spawn: what a short-lived process costs from kpn::spawn to its retirement.

#include <atomic>
#include <stdexcept>
#include <string>

#include <kpn.hpp>

#include "benchmarks.hpp"
#include "timed_region.hpp"

namespace kpn_bench {
namespace {

constexpr long kChildren = 200'000;
// Children spawned before the parent yields. A spawned process goes to the front of the spawner's queue
// and the yielding parent to the back, so every batch runs to completion before the next one is spawned:
// few processes live at once and stacks are recycled, as in a steady state.
constexpr long kBatch = 32;
constexpr long kWarmupBatches = 16;

}  // namespace

Result bench_spawn(const Options& o) {
  Result r;
  r.bench = "spawn";
  r.what = "a parent on one worker spawns trivial children in batches of " + std::to_string(kBatch) +
           " and yields after each batch; ns per child = elapsed / n (spawn + first switch + exit + retire)";
  r.config = {{"cpus", "1"}, {"scheduler", o.scheduler}, {"n", std::to_string(kChildren)}};
  Metric& ns = r.metric("ns_per_spawn", "ns");
  for (int rep = 0; rep < o.reps; ++rep) {
    std::atomic<long> ran{0};
    double t0 = 0, t1 = 0;
    kpn::Network net;
    net.process("parent", [&] {
      auto batch = [&] {
        for (long j = 0; j < kBatch; ++j) {
          kpn::spawn("child", [&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
        }
        kpn::yield();
      };
      for (long b = 0; b < kWarmupBatches; ++b) batch();
      t0 = now_s();
      KPN_BENCH_TIMED_BEGIN();
      for (long b = 0; b < kChildren / kBatch; ++b) batch();
      KPN_BENCH_TIMED_END();
      t1 = now_s();
    });
    kpn::Runtime rt({.cpus = 1, .scheduler = o.scheduler});
    rt.run(net);
    const long expected = (kWarmupBatches + kChildren / kBatch) * kBatch;
    if (ran.load() != expected) throw std::runtime_error("spawn: not every child ran");
    ns.samples.push_back((t1 - t0) * 1e9 / static_cast<double>(kChildren / kBatch * kBatch));
  }
  return r;
}

}  // namespace kpn_bench
