// spawn: what a short-lived process costs from kpn::spawn to its retirement, on one worker and on several
// at once (where spawns and retirements on different workers meet in the runtime's shared structures).

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

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

Result bench_spawn(const Options& o, unsigned cpus) {
  Result r;
  r.bench = "spawn-" + std::to_string(cpus) + "cpu";
  r.what = "one parent per worker (" + std::to_string(cpus) + ") spawns " + std::to_string(kChildren) +
           " trivial children in batches of " + std::to_string(kBatch) +
           " and yields after each batch; ns per child = elapsed (first parent's start to last parent's end) / " +
           std::to_string(kChildren) + ", so perfect scaling gives the one-worker figure (spawn + first switch + "
           "exit + retire)";
  r.config = {{"cpus", std::to_string(cpus)}, {"scheduler", o.scheduler}, {"n", std::to_string(kChildren)}};
  Metric& ns = r.metric("ns_per_spawn", "ns");
  // One count per parent, each on its own line: a count shared by the children of both workers would move a
  // line between the CPUs at every child, the benchmark's cost and not the runtime's.
  struct alignas(64) Count {
    std::atomic<long> ran{0};
  };
  for (int rep = 0; rep < o.reps; ++rep) {
    std::vector<Count> counts(cpus);
    std::atomic<unsigned> warm{0};
    std::mutex times_mutex;
    double t0 = std::numeric_limits<double>::max(), t1 = 0;
    kpn::Network net;
    for (unsigned i = 0; i < cpus; ++i) {
      net.process("parent-" + std::to_string(i), [&, i] {
        std::atomic<long>& ran = counts[i].ran;
        auto batch = [&] {
          for (long j = 0; j < kBatch; ++j) {
            kpn::spawn("child", [&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
          }
          kpn::yield();
        };
        for (long b = 0; b < kWarmupBatches; ++b) batch();
        // The parents start their timed batches together, so that they overlap.
        warm.fetch_add(1);
        while (warm.load() < cpus) kpn::yield();
        const double start = now_s();
        KPN_BENCH_TIMED_BEGIN();
        for (long b = 0; b < kChildren / kBatch; ++b) batch();
        KPN_BENCH_TIMED_END();
        const double end = now_s();
        std::lock_guard g(times_mutex);
        t0 = std::min(t0, start);
        t1 = std::max(t1, end);
      });
    }
    kpn::Runtime rt({.cpus = cpus, .scheduler = o.scheduler});
    rt.run(net);
    const long expected = static_cast<long>(cpus) * (kWarmupBatches + kChildren / kBatch) * kBatch;
    long ran = 0;
    for (const Count& c : counts) ran += c.ran.load();
    if (ran != expected) throw std::runtime_error("spawn: not every child ran");
    ns.samples.push_back((t1 - t0) * 1e9 / static_cast<double>(kChildren / kBatch * kBatch));
  }
  return r;
}

}  // namespace kpn_bench
