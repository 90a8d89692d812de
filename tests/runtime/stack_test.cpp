#include <catch2/catch.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kpn.hpp>
#include "runtime/config.hpp"
#include "runtime/stack_pool.hpp"

#include "support.hpp"
#include "tracked.hpp"

using kpn::test::Census;
using kpn::test::Tracked;

namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;

// Puts `kBytes` of stack to use, every page of it, and returns something that depends on all of it.
template <std::size_t kBytes>
[[gnu::noinline]] long use_stack() {
  volatile unsigned char buffer[kBytes];
  for (std::size_t i = 0; i < kBytes; i += 256) buffer[i] = static_cast<unsigned char>(i >> 8);
  long sum = 0;
  for (std::size_t i = 0; i < kBytes; i += 256) sum += buffer[i];
  return sum;
}

// Forks a child that writes one byte at `where`; returns its wait status.
int status_of_child_writing(volatile char* where) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGSEGV, SIG_DFL);  // die of the fault itself, not through Catch2's handler
    std::signal(SIGBUS, SIG_DFL);
    *where = 1;
    ::_exit(0);
  }
  REQUIRE(pid > 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

}  // namespace

TEST_CASE("a process given a 1 MiB stack can use 900 KiB of it", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    long sum = -1;  // written by the process only, read after run()
    kpn::Network net;
    net.process("deep", [&sum] { sum = use_stack<900 * kKiB>(); }, kpn::ProcessOptions{.stack_size = 1 * kMiB});
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(sum > 0);
  }
}

TEST_CASE("spawning a process with a stack below the minimum throws invalid_argument in the spawner",
          "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    Census census;
    bool rejected_small = false, rejected_large = false;  // written by "parent" only
    std::atomic<bool> ran{false};
    kpn::Network net;
    net.process("parent", [&] {
      try {
        kpn::spawn("tiny", [&ran, t = Tracked(census)] { ran = true; },
                   {.stack_size = kpn::config::kMinStackSize - 1});
      } catch (const std::invalid_argument&) {
        rejected_small = true;
      }
      try {
        kpn::spawn("huge", [&ran, t = Tracked(census)] { ran = true; },
                   {.stack_size = kpn::config::kMaxStackSize + 1});
      } catch (const std::invalid_argument&) {
        rejected_large = true;
      }
    });
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(rejected_small);
    REQUIRE(rejected_large);
    REQUIRE_FALSE(ran.load());
    REQUIRE(census.alive() == 0);
    REQUIRE(report.processes == 1);
  }
}

TEST_CASE("a process that spawns with a too small stack and does not catch it fails the run", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    net.process("parent", [] { kpn::spawn("tiny", [] {}, {.stack_size = 1 * kKiB}); });
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("run() returned normally");
    } catch (const kpn::ProcessFailed& e) {
      REQUIRE(e.process() == "parent");
      REQUIRE_THROWS_AS(std::rethrow_exception(e.cause()), std::invalid_argument);
    }
  }
}

TEST_CASE("an initial process with a too small stack is rejected before anything runs, leaking nothing",
          "[runtime]") {
  // Either Network::process or Runtime::run may reject it; what matters is invalid_argument, no process
  // body run, and every capture of every initial process destroyed.
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    Census census;
    std::atomic<int> ran{0};
    {
      kpn::Network net;
      bool rejected = false;
      try {
        net.process("fine-before", [&ran, t = Tracked(census)] { ran.fetch_add(1); });
        net.process("tiny", [&ran, t = Tracked(census)] { ran.fetch_add(1); }, {.stack_size = 1 * kKiB});
        net.process("fine-after", [&ran, t = Tracked(census)] { ran.fetch_add(1); });
        kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      } catch (const std::invalid_argument&) {
        rejected = true;
      }
      REQUIRE(rejected);
    }
    REQUIRE(ran.load() == 0);
    REQUIRE(census.alive() == 0);
  }
}

TEST_CASE("the stack pool hands a freed stack out again for the same size", "[runtime]") {
  kpn::StackPool pool(2);
  SECTION("through a worker's cache") {
    const auto a = pool.allocate(64 * kKiB, 0);
    pool.deallocate(a, 0);
    const auto b = pool.allocate(64 * kKiB, 0);
    REQUIRE(b.sp == a.sp);
    REQUIRE(b.size == a.size);
    pool.deallocate(b, 0);
  }
  SECTION("through the shared list, from a thread that is not a worker") {
    const auto a = pool.allocate(64 * kKiB, -1);
    pool.deallocate(a, -1);
    const auto b = pool.allocate(64 * kKiB, -1);
    REQUIRE(b.sp == a.sp);
    pool.deallocate(b, -1);
  }
  SECTION("not for another size") {
    const auto a = pool.allocate(64 * kKiB, 0);
    pool.deallocate(a, 0);
    const auto b = pool.allocate(128 * kKiB, 0);
    REQUIRE(b.sp != a.sp);
    REQUIRE(b.size == 128 * kKiB);
    pool.deallocate(b, 0);
  }
}

TEST_CASE("the stack pool rounds sizes up to whole pages", "[runtime]") {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  REQUIRE(kpn::StackPool::round_size(1) == page);
  REQUIRE(kpn::StackPool::round_size(page) == page);
  REQUIRE(kpn::StackPool::round_size(page + 1) == 2 * page);
  kpn::StackPool pool(1);
  const auto sc = pool.allocate(20 * kKiB + 1, 0);
  REQUIRE(sc.size % page == 0);
  REQUIRE(sc.size >= 20 * kKiB + 1);
  pool.deallocate(sc, 0);
}

TEST_CASE("a guarded stack faults on the byte below it and not on its lowest usable byte", "[runtime]") {
  kpn::StackPool pool(1);
  const auto sc = pool.allocate(64 * kKiB, 0);
  if (pool.guarded_stacks() == 0) {
    WARN("vm.max_map_count leaves no room for guarded stacks here; nothing to check");
    return;
  }
  auto* top = static_cast<volatile char*>(sc.sp);
  // The lowest usable byte is writable.
  const int ok = status_of_child_writing(top - sc.size);
  REQUIRE(WIFEXITED(ok));
  REQUIRE(WEXITSTATUS(ok) == 0);
  // One byte lower is the guard page.
  const int faulted = status_of_child_writing(top - sc.size - 1);
  REQUIRE(WIFSIGNALED(faulted));
  REQUIRE(WTERMSIG(faulted) == SIGSEGV);
  pool.deallocate(sc, 0);
}

TEST_CASE("where the kernel installs guards by madvise, every stack of a slab faults below its lowest byte",
          "[runtime]") {
  kpn::StackPool pool(1);
  if (!pool.guards_by_madvise()) {
    WARN("this kernel has no MADV_GUARD_INSTALL (Linux 6.13+); stacks are guarded one mapping each");
    return;
  }
  std::vector<boost::context::stack_context> stacks;
  for (int i = 0; i < 40; ++i) stacks.push_back(pool.allocate(64 * kKiB, 0));
  // 40 stacks from slabs of 16 and 32: two mappings, not 40.
  REQUIRE(pool.mappings() == 2);
  REQUIRE(pool.guarded_stacks() >= 40);
  for (const std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{39}}) {
    auto* top = static_cast<volatile char*>(stacks[i].sp);
    const int ok = status_of_child_writing(top - stacks[i].size);
    REQUIRE(WIFEXITED(ok));
    REQUIRE(WEXITSTATUS(ok) == 0);
    const int faulted = status_of_child_writing(top - stacks[i].size - 1);
    REQUIRE(WIFSIGNALED(faulted));
    REQUIRE(WTERMSIG(faulted) == SIGSEGV);
  }
  for (const auto& sc : stacks) pool.deallocate(sc, 0);
}

TEST_CASE("a process whose stack cannot be mapped fails the run naming it, and its neighbours are unwound",
          "[runtime]") {
  if (kpn::test::kSanitized) {
    SUCCEED("sanitizers reserve terabytes of address space; an address-space limit cannot be set under them");
    return;
  }
  // In a child: an address-space limit a little above what the program uses now, so the 1 GiB stack that
  // the third process asks for when it first runs cannot be mapped (stacks are taken at the first run).
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGSEGV, SIG_DFL);
    rlimit limit{};
    ::getrlimit(RLIMIT_AS, &limit);
    std::size_t in_use = 0;
    {
      std::FILE* f = std::fopen("/proc/self/statm", "r");
      unsigned long pages = 0;
      if (f == nullptr || std::fscanf(f, "%lu", &pages) != 1) ::_exit(10);
      std::fclose(f);
      in_use = pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    }
    limit.rlim_cur = in_use + 512 * kMiB;
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(11);
    int code = 12;
    try {
      kpn::Network net;
      auto [tx, rx] = net.channel<int>(1);
      net.process("writer", [tx = std::move(tx)]() mutable {
        for (int i = 0;; ++i) tx.write(i);
      });
      net.process("reader", [rx = std::move(rx)]() mutable {
        while (rx.read()) {}
      });
      net.process("huge", [] { use_stack<4 * kKiB>(); }, kpn::ProcessOptions{.stack_size = 1024 * kMiB});
      kpn::Runtime({.cpus = 2}).run(net);
      code = 13;
    } catch (const kpn::ProcessFailed& e) {
      code = e.process() == "huge" && std::string(e.what()).find("could not map") != std::string::npos ? 0 : 14;
      if (code != 0) std::fprintf(stderr, "unexpected failure: %s (%s)\n", e.what(), e.process().c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "unexpected error: %s\n", e.what());
      code = 15;
    }
    ::_exit(code);
  }
  REQUIRE(pid > 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
}

namespace {
// `n` readers that all wait at once (each blocks on its own channel until the last process writes to
// all of them), so the run needs `n` stacks at one time whatever the policy.
void add_waiting_readers(kpn::Network& net, int n, std::atomic<long>& sum) {
  std::vector<kpn::Writer<int>> writers;
  for (int i = 0; i < n; ++i) {
    auto [tx, rx] = net.channel<int>(1);
    writers.push_back(std::move(tx));
    net.process("reader-" + std::to_string(i), [rx = std::move(rx), &sum]() mutable {
      while (auto v = rx.read()) sum.fetch_add(*v);
    });
  }
  net.process("writer", [writers = std::move(writers)]() mutable {
    for (int round = 0; round < 3; ++round) {
      for (auto& w : writers) w.write(1);
      kpn::yield();
    }
  });
}
}  // namespace

TEST_CASE("a runtime's second run takes its stacks from the first run's pool", "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Runtime rt({.cpus = cfg.cpus, .scheduler = cfg.scheduler});
    std::atomic<long> sum{0};
    kpn::Network first;
    add_waiting_readers(first, 100, sum);
    const kpn::RunReport a = rt.run(first);
    REQUIRE(a.stacks_mapped >= 1);
    kpn::Network second;
    add_waiting_readers(second, 100, sum);
    const kpn::RunReport b = rt.run(second);
    REQUIRE(sum.load() == 2 * 3 * 100);
    // The second run maps only what the first did not need at once (a policy may run more at once now).
    REQUIRE(b.stacks_mapped <= a.stacks_mapped);
    REQUIRE(b.stacks_mapped < 100);
    REQUIRE(a.to_json().find("\"stacks_mapped\":") != std::string::npos);
  }
}
