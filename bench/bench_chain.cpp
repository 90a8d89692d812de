// chain: 100,000 processes in a line, joined by capacity-1 channels, passing one message from the first to
// the last. Measures what a large network costs to build, run and tear down, and its peak memory. Each
// repetition runs in a forked child, so that its peak RSS is its own (the child starts from the parent's
// resident set at fork time, reported as baseline_rss_mib).

#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kpn.hpp>

#include "benchmarks.hpp"

namespace kpn_bench {
namespace {

constexpr long kLength = 100'000;

struct ChainTimes {
  double build_s = 0;  // kpn::Network with its processes and channels
  double run_s = 0;    // kpn::Runtime construction and run()
  double total_s = 0;  // build + run + destruction of the runtime, the report and the network
  int ok = 0;
};

ChainTimes run_chain(unsigned cpus, const std::string& scheduler) {
  ChainTimes t;
  int received = -1;
  const double start = now_s();
  {
    kpn::Network net;
    kpn::Reader<int> prev;
    for (long i = 0; i < kLength; ++i) {
      const std::string name = "p" + std::to_string(i);
      if (i + 1 < kLength) {
        auto [tx, rx] = net.channel<int>(1, "c" + std::to_string(i));
        if (i == 0) {
          net.process(name, [tx = std::move(tx)]() mutable { tx.write(0); });
        } else {
          net.process(name, [rx = std::move(prev), tx = std::move(tx)]() mutable { tx.write(*rx.read() + 1); });
        }
        prev = std::move(rx);
      } else {
        net.process(name, [rx = std::move(prev), &received]() mutable { received = *rx.read(); });
      }
    }
    const double built = now_s();
    t.build_s = built - start;
    kpn::Runtime rt({.cpus = cpus, .scheduler = scheduler});
    const kpn::RunReport report = rt.run(net);
    t.run_s = now_s() - built;
  }
  t.total_s = now_s() - start;
  t.ok = received == kLength - 1;
  return t;
}

double resident_mib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

// Runs the chain in a child; returns its times and its peak RSS in MiB.
ChainTimes fork_chain(unsigned cpus, const std::string& scheduler, double& max_rss_mib) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("chain: pipe failed");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("chain: fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    ChainTimes t;
    try {
      t = run_chain(cpus, scheduler);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "chain: %s\n", e.what());
      t.ok = 0;
    }
    const bool written = ::write(fds[1], &t, sizeof t) == static_cast<ssize_t>(sizeof t);
    ::_exit(written && t.ok ? 0 : 1);
  }
  ::close(fds[1]);
  ChainTimes t;
  const bool got = ::read(fds[0], &t, sizeof t) == static_cast<ssize_t>(sizeof t);
  ::close(fds[0]);
  int status = 0;
  struct rusage ru {};
  if (::wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !got || !t.ok) {
    throw std::runtime_error("chain: the child failed");
  }
  max_rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  return t;
}

}  // namespace

std::vector<Result> bench_chain(const Options& o) {
  std::vector<Result> results;
  std::vector<unsigned> cpu_counts{1};
  const unsigned all = std::thread::hardware_concurrency();
  if (all > 1) cpu_counts.push_back(all);
  for (unsigned cpus : cpu_counts) {
    Result r;
    r.bench = "chain";
    r.what = std::to_string(kLength) +
             " processes joined by capacity-1 channels pass one int from first to last; each rep in a forked "
             "child: wall times and the child's peak RSS (getrusage ru_maxrss)";
    r.config = {{"cpus", std::to_string(cpus)}, {"scheduler", o.scheduler}, {"n", std::to_string(kLength)}};
    Metric& total = r.metric("total_s", "s");
    Metric& build = r.metric("build_s", "s");
    Metric& run = r.metric("runtime_and_run_s", "s");
    Metric& rss = r.metric("max_rss_mib", "MiB");
    const double baseline = resident_mib();
    for (int rep = 0; rep < o.reps; ++rep) {
      double max_rss = 0;
      const ChainTimes t = fork_chain(cpus, o.scheduler, max_rss);
      total.samples.push_back(t.total_s);
      build.samples.push_back(t.build_s);
      run.samples.push_back(t.run_s);
      rss.samples.push_back(max_rss);
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", baseline);
    r.notes = {{"baseline_rss_mib", buf}};
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace kpn_bench
