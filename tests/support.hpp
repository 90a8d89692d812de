#pragma once
// Helpers shared by the tests: the scheduler and worker-count matrix every behaviour is checked on.

#include <string>
#include <string_view>
#include <vector>

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
inline std::vector<Config> all_configs() {
  std::vector<Config> out;
  for (const auto& s : kpn::scheduler_list()) {
    for (unsigned c : {1u, 2u, 4u}) out.push_back({s.name, c});
  }
  return out;
}

// On one worker, every built-in policy runs the initial processes in the order they were declared, and a
// process runs until it blocks: some tests check the exact interleaving that follows. The test-only
// "random" policy promises no order at all, so those checks skip it.
inline bool in_declared_order(const Config& c) { return c.cpus == 1 && c.scheduler != "random"; }

}  // namespace kpn::test
