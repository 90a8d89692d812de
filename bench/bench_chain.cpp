// chain: 100,000 processes in a line, joined by capacity-1 channels, passing one message from the first to
// the last. Measures what a large network costs to build, run and tear down, and its peak memory.
//
// Each repetition runs in a fresh program: kpn-bench re-executes itself (/proc/self/exe --chain-child), so
// the peak resident set (VmHWM) is the chain's own plus the program's start-up, as for a peer runtime's
// program, and no copy-on-write faults on the parent's heap (which a plain fork would inherit) slow it down.

#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kpn.hpp>

#include "benchmarks.hpp"

namespace kpn_bench {
namespace {

constexpr long kLength = 100'000;

// "<prefix><i>", built by appending (GCC 12 warns falsely, -Wrestrict, on "literal" + std::to_string).
std::string indexed(const char* prefix, long i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

struct ChainTimes {
  double build_s = 0;  // kpn::Network with its processes and channels
  double run_s = 0;    // kpn::Runtime construction and run()
  double total_s = 0;  // build + run + destruction of the runtime, the report and the network
  double peak_rss_mib = 0;
};

// A field of /proc/self/status ("VmHWM:", "VmRSS:") in MiB.
double proc_status_mib(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(field);
  while (std::getline(f, line)) {
    if (line.compare(0, n, field) == 0) return std::stod(line.substr(n)) / 1024.0;
  }
  return 0;
}

// Runs the chain in a child program; returns its times and its peak RSS.
ChainTimes spawn_chain(unsigned cpus, const std::string& scheduler) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("chain: pipe failed");
  std::fflush(nullptr);
  const std::string cpus_arg = std::to_string(cpus);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("chain: fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    if (::dup2(fds[1], STDOUT_FILENO) < 0) ::_exit(127);
    ::close(fds[1]);
    ::execl("/proc/self/exe", "kpn-bench", "--chain-child", cpus_arg.c_str(), "--scheduler", scheduler.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buf[256];
  for (ssize_t got; (got = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(got));
  ::close(fds[0]);
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) throw std::runtime_error("chain: waitpid failed");
  if (WIFSIGNALED(status)) {
    throw std::runtime_error("chain: the child died of signal " + std::to_string(WTERMSIG(status)) + " (" +
                             ::strsignal(WTERMSIG(status)) + ")");
  }
  ChainTimes t;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      std::sscanf(out.c_str(), "%lf %lf %lf %lf", &t.build_s, &t.run_s, &t.total_s, &t.peak_rss_mib) != 4) {
    throw std::runtime_error("chain: the child failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")");
  }
  return t;
}

}  // namespace

int chain_child(unsigned cpus, const std::string& scheduler) {
  int received = -1;
  ChainTimes t;
  const double start = now_s();
  {
    kpn::Network net;
    kpn::Reader<int> prev;
    for (long i = 0; i < kLength; ++i) {
      const std::string name = indexed("p", i);
      if (i + 1 < kLength) {
        auto [tx, rx] = net.channel<int>(1, indexed("c", i));
        if (i == 0) {
          net.process(name, [tx = std::move(tx)]() mutable { tx.write(1); });
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
  t.peak_rss_mib = proc_status_mib("VmHWM:");
  if (received != kLength - 1) {  // p0 sends 1, each of the kLength - 2 in between adds 1
    std::fprintf(stderr, "chain: the last process received %d, not %ld\n", received, kLength - 1);
    return 1;
  }
  std::printf("%.9f %.9f %.9f %.3f\n", t.build_s, t.run_s, t.total_s, t.peak_rss_mib);
  return 0;
}

Result bench_chain(const Options& o, unsigned cpus) {
  Result r;
  r.bench = "chain-" + std::to_string(cpus) + "cpu";
  r.what = std::to_string(kLength) +
           " processes joined by capacity-1 channels pass one int from first to last; each rep a fresh "
           "program: wall times, and its peak RSS (VmHWM)";
  r.config = {{"cpus", std::to_string(cpus)}, {"scheduler", o.scheduler}, {"n", std::to_string(kLength)}};
  Metric& total = r.metric("total_s", "s");
  Metric& build = r.metric("build_s", "s");
  Metric& run = r.metric("runtime_and_run_s", "s");
  Metric& rss = r.metric("peak_rss_mib", "MiB");
  for (int rep = 0; rep < o.reps; ++rep) {
    const ChainTimes t = spawn_chain(cpus, o.scheduler);
    total.samples.push_back(t.total_s);
    build.samples.push_back(t.build_s);
    run.samples.push_back(t.run_s);
    rss.samples.push_back(t.peak_rss_mib);
  }
  return r;
}

}  // namespace kpn_bench
