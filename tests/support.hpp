#pragma once
// Helpers shared by the tests: the scheduler and worker-count matrix every behaviour is checked on.

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <unistd.h>

#include "runtime/config.hpp"
#include "runtime/scheduler_registry.hpp"

namespace kpn::test {

// The suite runs four times in CI: optimised, and under ThreadSanitizer, AddressSanitizer and
// UndefinedBehaviorSanitizer (KPN_SANITIZER, tests/CMakeLists.txt, names the build's sanitizer). The long
// stress workloads keep their full size in the optimised run, which meets the most interleavings per
// second; a sanitizer checks every operation it sees, so it runs a smaller shape of the same network
// (each sanitizer costs 3 to 20 times the optimised run per operation).
inline constexpr bool kSanitized = !std::string_view(KPN_SANITIZER).empty();
template <class T>
constexpr T full_or_sanitized(T full, T sanitized) { return kSanitized ? sanitized : full; }

struct Config {
  std::string scheduler;
  unsigned cpus;
};

// Every registered policy (the built-in ones, and the test binary's "random", tests/support/) on 1, 2
// and 4 workers (4 is more workers than a 2-CPU machine has, on purpose: workers then share CPUs and get
// preempted, which shakes out races). A new policy joins every matrix by registering.
//
// Under a sanitizer each policy runs on one worker count only, taken in turn from 2, 4 and 1 along the
// registry's (alphabetical) list, so every count and every policy is still met, and the default policy
// on 2 and 4 workers (it has the most intricate protocol, sleeping workers): the optimised run covers
// the whole matrix, and a sanitizer's 3- to 20-fold cost per operation times twelve policies times three
// counts would keep CI's four runs of the suite from finishing in its time on two CPUs.
inline std::vector<Config> all_configs() {
  std::vector<Config> out;
  unsigned turn = 0;
  for (const auto& s : kpn::scheduler_list()) {
    if (kSanitized) {
      static constexpr unsigned kTurns[] = {2u, 4u, 1u};
      const unsigned cpus = kTurns[turn++ % 3];
      out.push_back({s.name, cpus});
      if (s.name == kpn::config::kDefaultScheduler) out.push_back({s.name, cpus == 4u ? 2u : 4u});
      continue;
    }
    for (unsigned c : {1u, 2u, 4u}) out.push_back({s.name, c});
  }
  return out;
}

// On one worker, every built-in policy runs the initial processes in the order they were declared, and a
// process runs until it blocks: some tests check the exact interleaving that follows. The test-only
// "random" policy promises no order at all, so those checks skip it.
inline bool in_declared_order(const Config& c) { return c.cpus == 1 && c.scheduler != "random"; }

// A scratch directory for one test process, <tmp>/<prefix>-<pid>, removed with everything in it when the
// process exits (ctest runs each test case as its own process: a directory left behind per case would
// pile up in /tmp run after run).
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(std::string_view prefix)
      : path(std::filesystem::temp_directory_path() / (std::string(prefix) + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace kpn::test
