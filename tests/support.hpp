#pragma once
// Helpers shared by the tests: the scheduler and worker-count matrix every behaviour is checked on.

#include <string>
#include <vector>

namespace kpn::test {

struct Config {
  std::string scheduler;
  unsigned cpus;
};

// Both work-stealing policies and graph partitioning on 1, 2 and 4 workers (4 is more workers than this
// 2-CPU machine has, on purpose: workers then share CPUs and get preempted, which shakes out races).
inline std::vector<Config> all_configs() {
  std::vector<Config> out;
  for (const char* s : {"ws-cur", "ws-last", "gp"}) {
    for (unsigned c : {1u, 2u, 4u}) out.push_back({s, c});
  }
  return out;
}

}  // namespace kpn::test
