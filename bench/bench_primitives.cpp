// primitives: what the building blocks of a switch cost on this machine, so that the other results can be
// read against them (and compared across machines). None of it runs kpn; all of it is what kpn's hot paths
// are made of: a time-stamp read, a locked read-modify-write, a Boost.Context switch, a pause, a cache line
// moving between two CPUs, sched_yield; and membarrier, the price of the barrier-free alternative.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>

#include "benchmarks.hpp"
#include "runtime/cpu_relax.hpp"
#include "runtime/cycle_clock.hpp"

namespace kpn_bench {
namespace {

namespace ctx = boost::context;

volatile std::uint64_t g_sink;

// ns per iteration of `body(n)`, which runs n iterations.
template <class F>
double ns_per(long n, F&& body) {
  const double t0 = now_s();
  body(n);
  return (now_s() - t0) * 1e9 / static_cast<double>(n);
}

double rdtsc_ns() {
  return ns_per(10'000'000, [](long n) {
    std::uint64_t s = 0;
    for (long i = 0; i < n; ++i) s += kpn::cycle_clock::now();
    g_sink = s;
  });
}

// One uncontended acquire (exchange) and release (store): a run-queue or channel lock round.
double lock_round_ns() {
  std::atomic<bool> locked{false};
  return ns_per(10'000'000, [&](long n) {
    for (long i = 0; i < n; ++i) {
      while (locked.exchange(true, std::memory_order_acquire)) {
      }
      locked.store(false, std::memory_order_release);
    }
  });
}

// An uncontended locked add: the `active` counter's update on park and unblock.
double fetch_add_ns() {
  std::atomic<long> c{0};
  return ns_per(10'000'000, [&](long n) {
    for (long i = 0; i < n; ++i) c.fetch_add(1, std::memory_order_acq_rel);
  });
}

// Into a fiber and back: two jump_fcontext, what kpn does per switch (process -> worker -> process).
double fiber_pair_ns() {
  bool stop = false;
  ctx::fiber f{[&stop](ctx::fiber&& caller) {
    while (!stop) caller = std::move(caller).resume();
    return std::move(caller);
  }};
  const double ns = ns_per(10'000'000, [&](long n) {
    for (long i = 0; i < n; ++i) f = std::move(f).resume();
  });
  stop = true;
  f = std::move(f).resume();  // lets the fiber return
  return ns;
}

// The spin-wait hint the run-queue lock and the steal loop use (cpu_relax): its latency differs by an
// order of magnitude between CPU models.
double pause_ns() {
  return ns_per(2'000'000, [](long n) {
    for (long i = 0; i < n; ++i) kpn::cpu_relax();
  });
}

double sched_yield_ns() {
  return ns_per(200'000, [](long n) {
    for (long i = 0; i < n; ++i) sched_yield();
  });
}

double steady_clock_ns() {
  return ns_per(2'000'000, [](long n) {
    std::int64_t s = 0;
    for (long i = 0; i < n; ++i) s += std::chrono::steady_clock::now().time_since_epoch().count();
    g_sink = static_cast<std::uint64_t>(s);
  });
}

cpu_set_t only_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return set;
}

struct alignas(64) Line {
  std::atomic<long> v{0};
};
struct CrossCpu {
  Line ping, pong;
  long n = 500'000;
};

void* echo_main(void* arg) {
  auto& c = *static_cast<CrossCpu*>(arg);
  for (long i = 1; i <= c.n; ++i) {
    while (c.ping.v.load(std::memory_order_acquire) != i) {
    }
    c.pong.v.store(i, std::memory_order_release);
  }
  return nullptr;
}

void* spin_main(void* arg) {
  auto& stop = *static_cast<std::atomic<bool>*>(arg);
  while (!stop.load(std::memory_order_relaxed)) kpn::cpu_relax();
  return nullptr;
}

// Runs `body()` on CPU 0 while `helper(arg)` runs on a thread of its own on CPU 1 (created there, never on
// the caller's CPU, where a real-time helper spinning under chrt would starve the caller), then joins it;
// without `helper`, only pins. Returns body's result, or 0 if pinning or the thread fails.
template <class Body>
double on_cpu0_beside_cpu1(void* (*helper)(void*), void* arg, Body&& body) {
  cpu_set_t old;
  pthread_getaffinity_np(pthread_self(), sizeof old, &old);
  const cpu_set_t cpu0 = only_cpu(0), cpu1 = only_cpu(1);
  if (pthread_setaffinity_np(pthread_self(), sizeof cpu0, &cpu0) != 0) return 0;
  pthread_t thread;
  bool started = false;
  if (helper != nullptr) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof cpu1, &cpu1);
    started = pthread_create(&thread, &attr, helper, arg) == 0;
    pthread_attr_destroy(&attr);
  }
  const double result = helper == nullptr || started ? body() : 0;
  if (started) pthread_join(thread, nullptr);
  pthread_setaffinity_np(pthread_self(), sizeof old, &old);
  return result;
}

// Two threads on CPUs 0 and 1 bounce a counter through two cache lines: the hardware's floor for any
// round trip between two workers. Returns 0 if pinning fails.
double cross_cpu_round_trip_ns() {
  CrossCpu c;
  return on_cpu0_beside_cpu1(echo_main, &c, [&] {
    return ns_per(c.n, [&](long m) {
      for (long i = 1; i <= m; ++i) {
        c.ping.v.store(i, std::memory_order_release);
        while (c.pong.v.load(std::memory_order_acquire) != i) {
        }
      }
    });
  });
}

// membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): the heavy side of an asymmetric barrier, which a channel whose
// fast path had no barrier would need on its parking side (docs/performance-log.md, session 12). With `spinner`, a
// thread of this process spins on CPU 1 meanwhile (the kernel then interrupts that CPU); without, no other
// thread of the process runs. 0 if the kernel refuses it or pinning fails.
double membarrier_ns(bool spinner) {
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0) return 0;
  std::atomic<bool> stop{false};
  return on_cpu0_beside_cpu1(spinner ? spin_main : nullptr, &stop, [&] {
    if (spinner) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the spinner is on CPU 1
    const double ns = ns_per(spinner ? 2'000 : 20'000, [](long n) {
      for (long i = 0; i < n; ++i) syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    });
    stop.store(true, std::memory_order_relaxed);
    return ns;
  });
}

}  // namespace

Result bench_primitives(const Options& o) {
  Result r;
  r.bench = "primitives";
  r.what = "building blocks of a switch, without kpn: ns per operation on the calling thread";
  r.config = {{"cpus", "1 (cross_cpu: CPUs 0 and 1)"}};
  Metric& tsc = r.metric("rdtsc", "ns");
  Metric& lock = r.metric("lock_xchg_and_release", "ns");
  Metric& add = r.metric("locked_fetch_add", "ns");
  Metric& fiber = r.metric("fiber_resume_pair", "ns");
  Metric& relax = r.metric("cpu_relax_pause", "ns");
  Metric& clock = r.metric("steady_clock_now", "ns");
  Metric& yield = r.metric("sched_yield", "ns");
  Metric* cross = std::thread::hardware_concurrency() > 1 ? &r.metric("cross_cpu_round_trip", "ns") : nullptr;
  Metric& barrier = r.metric("membarrier_expedited", "ns");
  Metric* barrier_busy =
      std::thread::hardware_concurrency() > 1 ? &r.metric("membarrier_expedited_other_cpu_busy", "ns") : nullptr;
  for (int rep = 0; rep < o.reps; ++rep) {
    tsc.samples.push_back(rdtsc_ns());
    lock.samples.push_back(lock_round_ns());
    add.samples.push_back(fetch_add_ns());
    fiber.samples.push_back(fiber_pair_ns());
    relax.samples.push_back(pause_ns());
    clock.samples.push_back(steady_clock_ns());
    yield.samples.push_back(sched_yield_ns());
    if (cross != nullptr) cross->samples.push_back(cross_cpu_round_trip_ns());
    barrier.samples.push_back(membarrier_ns(false));
    if (barrier_busy != nullptr) barrier_busy->samples.push_back(membarrier_ns(true));
  }
  return r;
}

}  // namespace kpn_bench
