// The limits of networks/limits.hpp are checked per declaration before anything is expanded: a file that
// would grow past them is refused at the first declaration that crosses one, quickly and in little memory,
// whatever it would have grown to.

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "networks/limits.hpp"
#include "networks_support.hpp"

using Catch::Matchers::Contains;

namespace {

// 100 declarations of 100,000 channels each (10^7 in all). The first to cross the channel limit is the
// k-th, kCrossing below, written at line 4 + k.
constexpr std::size_t kPerDeclaration = 100'000;
constexpr std::size_t kCrossing = kpn::limits::kMaxChannels / kPerDeclaration + 1;
static_assert(kCrossing <= 100, "the file must cross the limit");
std::string ten_million_channels() {
  std::string yaml = "network: t\nprocesses:\n  a: { kind: map, replicas: 100000 }\nchannels:\n";
  for (int k = 1; k <= 100; ++k) yaml += fmt::format("  - {{ from: a.out, to: a.in, shift: {} }}\n", k);
  return yaml;
}
std::string crossing_line() { return fmt::format("t.yaml:{}:5", 4 + kCrossing); }

struct ChildUsage {
  int exit_code = -1;
  long max_rss_kib = 0;
  double seconds = 0;
  std::string err;
};

// Runs kpn-run with `args` in a child and measures its peak resident set size.
ChildUsage kpn_run_measured(const std::vector<std::string>& args) {
  const auto err_path = kpn::test::scratch_file("limits-stderr.txt");
  const std::string runner = kpn::test::kpn_run_path();
  std::vector<char*> argv{const_cast<char*>(runner.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // dup2, not freopen: freopen would flush the test program's buffered output a second time.
    ::dup2(::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDERR_FILENO);
    ::dup2(::open("/dev/null", O_WRONLY), STDOUT_FILENO);
    ::execv(runner.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
  ChildUsage u;
  u.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) u.exit_code = WEXITSTATUS(status);
  u.max_rss_kib = usage.ru_maxrss;
  u.err = kpn::test::read_text(err_path);
  return u;
}

}  // namespace

TEST_CASE("a file that would expand to 10^7 channels is refused at the first declaration past the limit", "[networks]") {
  const auto diags = kpn::test::errors_of(ten_million_channels());
  INFO(kpn::test::listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.str() == crossing_line());
  CHECK(diags[0].message == fmt::format("channel a.out -> a.in: its 100000 channels bring the network to {}; "
                                        "the limit is {}",
                                        kCrossing * kPerDeclaration, kpn::limits::kMaxChannels));
}

TEST_CASE("replicas past the process limit are refused at the declaration that crosses it", "[networks]") {
  // Declarations of the most replicas one may have; p<k> is the first whose replicas cross the limit.
  const std::size_t per = static_cast<std::size_t>(kpn::limits::kMaxReplicas);
  const std::size_t k = kpn::limits::kMaxProcesses / per;
  std::string yaml = "network: t\nprocesses:\n";
  for (std::size_t i = 0; i <= k + 2; ++i) yaml += fmt::format("  p{}: {{ kind: map, replicas: {} }}\n", i, per);
  const auto diags = kpn::test::errors_of(yaml);
  INFO(kpn::test::listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.str() == fmt::format("t.yaml:{}:3", 3 + k));
  CHECK_THAT(diags[0].message, Contains(fmt::format("process 'p{}': its replicas bring the network to {} processes", k,
                                                    (k + 1) * per)) &&
                                   Contains(std::to_string(kpn::limits::kMaxProcesses)));
}

TEST_CASE("kpn-run refuses a 10^7-channel file within 100 MiB and a few seconds, with the location", "[runner]") {
  const auto file = kpn::test::write_scratch("ten-million.yaml", ten_million_channels());
  const auto u = kpn_run_measured({file.string(), "--validate"});
  INFO(u.err);
  CHECK(u.exit_code == 2);
  CHECK_THAT(u.err, Contains(fmt::format("{}:{}:5: channel a.out -> a.in", file.string(), 4 + kCrossing)));
  if (std::string(KPN_SANITIZER).empty()) {  // a sanitizer's shadow memory and slowdown are not ours
    CHECK(u.max_rss_kib < 100 * 1024);
    CHECK(u.seconds < 10.0);
  }
}

TEST_CASE("a caller's own limits bound replicas, processes and channels", "[networks]") {
  const kpn::ResolveLimits small{.replicas = 10, .processes = 15, .channels = 12};
  const auto errors_with = [&](const std::string& yaml) {
    try {
      (void)kpn::resolve(kpn::parse_topology(yaml, "t.yaml"), {}, small);
    } catch (const kpn::TopologyError& e) {
      return e.diagnostics();
    }
    return std::vector<kpn::Diagnostic>{};
  };
  SECTION("replicas") {
    const auto diags = errors_with("network: t\nprocesses:\n  a: { kind: map, replicas: 11 }\n");
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].message == "process 'a': replicas: 11 is out of range [1, 10]");
  }
  SECTION("processes") {
    const auto diags = errors_with("network: t\nprocesses:\n  a: { kind: map, replicas: 8 }\n  b: { kind: map, replicas: 8 }\n");
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].where.str() == "t.yaml:4:3");
    CHECK(diags[0].message == "process 'b': its replicas bring the network to 16 processes; the limit is 15");
  }
  SECTION("channels") {
    const auto diags = errors_with(
        "network: t\nprocesses:\n  a: { kind: map, replicas: 7 }\nchannels:\n"
        "  - { from: a.out, to: a.in, shift: 1 }\n  - { from: a.out, to: a.in, shift: 2 }\n");
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].where.str() == "t.yaml:6:5");
    CHECK_THAT(diags[0].message, Contains("its 7 channels bring the network to 14; the limit is 12"));
  }
  SECTION("within them the same file resolves") {
    const auto net = kpn::resolve(
        kpn::parse_topology("network: t\nprocesses:\n  a: { kind: map, replicas: 10 }\nchannels:\n"
                            "  - { from: a.out, to: a.in, shift: 1 }\n",
                            "t.yaml"),
        {}, small);
    CHECK(net.processes.size() == 10);
    CHECK(net.channels.size() == 10);
  }
}
