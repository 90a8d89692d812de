// yield and ping-pong: the cost of a context switch, alone and with a channel handshake around it.

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include <kpn.hpp>

#include "benchmarks.hpp"
#include "schedulers/work_stealing.hpp"
#include "timed_region.hpp"

namespace kpn_bench {
namespace {

constexpr long kYields = 1'000'000;         // per process
constexpr long kRoundTrips1 = 1'000'000;    // one worker
constexpr long kRoundTrips2 = 200'000;      // two workers (slower: the message crosses CPUs)
constexpr long kWarmup = 10'000;            // untimed iterations first: stacks faulted in, caches warm

// Start and end stamps written by the processes themselves, so that thread start-up, hwloc pinning and
// the run report stay out of the measurement.
struct Stamps {
  double t0 = 0;
  double t1 = 0;
  std::atomic<int> finished{0};
};

std::string processes_where(const kpn::RunReport& report) {
  std::string s;
  for (const auto& p : report.process_details) {
    s += (s.empty() ? "" : ",") + p.name + "@w" + std::to_string(p.last_worker);
  }
  return s;
}

}  // namespace

Result bench_yield(const Options& o) {
  Result r;
  r.bench = "yield";
  r.what = "two processes on one worker alternate through kpn::yield(); ns per yield = elapsed / (2 * n)";
  r.config = {{"cpus", "1"}, {"scheduler", o.scheduler}, {"n", std::to_string(kYields) + " per process"}};
  Metric& ns = r.metric("ns_per_yield", "ns");
  for (int rep = 0; rep < o.reps; ++rep) {
    Stamps st;
    kpn::Network net;
    for (const char* name : {"a", "b"}) {
      net.process(name, [&st] {
        for (long i = 0; i < kWarmup; ++i) kpn::yield();
        // Both processes are in lockstep; the first past the warm-up starts the clock.
        if (st.t0 == 0) {
          st.t0 = now_s();
          KPN_BENCH_TIMED_BEGIN();
        }
        for (long i = 0; i < kYields; ++i) kpn::yield();
        if (st.finished.fetch_add(1) == 1) {
          KPN_BENCH_TIMED_END();
          st.t1 = now_s();
        }
      });
    }
    kpn::Runtime rt({.cpus = 1, .scheduler = o.scheduler});
    const kpn::RunReport report = rt.run(net);
    ns.samples.push_back((st.t1 - st.t0) * 1e9 / (2.0 * kYields));
    r.notes = {{"switches_per_yield",
                std::to_string(static_cast<double>(report.context_switches) / (2.0 * (kYields + kWarmup)))}};
  }
  return r;
}

Result bench_pingpong(const Options& o, Placement placement) {
  const unsigned cpus = placement == Placement::OneWorker ? 1 : 2;
  const long n = placement == Placement::OneWorker ? kRoundTrips1 : kRoundTrips2;
  Result r;
  r.bench = placement == Placement::OneWorker          ? "pingpong-1cpu"
            : placement == Placement::TwoWorkersPolicy ? "pingpong-2cpu"
                                                       : "pingpong-2cpu-apart";
  r.what = placement == Placement::TwoWorkersApart
               ? "round trip over two capacity-1 channels, the two processes held on different workers "
                 "(ws-last without stealing); ns per round trip"
               : "round trip over two capacity-1 channels (int messages); ns per round trip";
  const std::string policy = placement == Placement::TwoWorkersApart ? "ws-last-nosteal" : o.scheduler;
  r.config = {{"cpus", std::to_string(cpus)}, {"scheduler", policy}, {"n", std::to_string(n)}};
  Metric& ns = r.metric("ns_per_round_trip", "ns");
  for (int rep = 0; rep < o.reps; ++rep) {
    Stamps st;
    kpn::Network net;
    auto [ping_tx, ping_rx] = net.channel<int>(1, "ping");
    auto [pong_tx, pong_rx] = net.channel<int>(1, "pong");
    net.process("a", [&st, n, tx = std::move(ping_tx), rx = std::move(pong_rx)]() mutable {
      for (long i = 0; i < kWarmup; ++i) {
        tx.write(static_cast<int>(i));
        rx.read();
      }
      st.t0 = now_s();
      KPN_BENCH_TIMED_BEGIN();
      for (long i = 0; i < n; ++i) {
        tx.write(static_cast<int>(i));
        if (rx.read() != static_cast<int>(i)) throw std::runtime_error("ping-pong: wrong reply");
      }
      KPN_BENCH_TIMED_END();
      st.t1 = now_s();
    });
    net.process("b", [rx = std::move(ping_rx), tx = std::move(pong_tx)]() mutable {
      while (auto v = rx.read()) tx.write(*v);
    });
    std::unique_ptr<kpn::Runtime> rt;
    if (placement == Placement::TwoWorkersApart) {
      rt = std::make_unique<kpn::Runtime>(kpn::RuntimeOptions{.cpus = cpus}, std::make_unique<kpn::WorkStealingScheduler>(kpn::WorkStealingScheduler::Unblock::Last, kpn::WorkStealingScheduler::Stealing::Off));
    } else {
      rt = std::make_unique<kpn::Runtime>(kpn::RuntimeOptions{.cpus = cpus, .scheduler = o.scheduler});
    }
    const kpn::RunReport report = rt->run(net);
    ns.samples.push_back((st.t1 - st.t0) * 1e9 / static_cast<double>(n));
    r.notes = {{"switches_per_round_trip",
                std::to_string(static_cast<double>(report.context_switches) / static_cast<double>(n + kWarmup))},
               {"steal_attempts", std::to_string(report.steal_attempts)},
               {"steals", std::to_string(report.steals)},
               {"last_worker", processes_where(report)}};
  }
  return r;
}

}  // namespace kpn_bench
