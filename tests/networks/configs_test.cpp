// Every file in configs/ loads, validates and runs under ws-cur, ws-last, gp and gp-static on 1 and 2 workers, and prints
// the same result each time: the one this file computes for it independently (Kahn's determinism).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "networks_support.hpp"

using kpn::test::sink_line;

namespace {

using i64 = std::int64_t;

struct Expected {
  kpn::test::Sets sets;  // overrides that keep the run short
  std::function<std::vector<std::string>()> lines;
};

std::vector<i64> fibonacci(int n) {  // 1, 1, 2, 3, 5, ...
  std::vector<i64> v;
  i64 a = 1, b = 1;
  for (int i = 0; i < n; ++i) {
    v.push_back(a);
    const i64 next = a + b;
    a = b;
    b = next;
  }
  return v;
}

std::vector<i64> hamming(int n) {  // 2^i 3^j 5^k in ascending order
  std::set<i64> pending{1};
  std::vector<i64> v;
  while (static_cast<int>(v.size()) < n) {
    const i64 h = *pending.begin();
    pending.erase(pending.begin());
    v.push_back(h);
    for (i64 f : {2, 3, 5}) pending.insert(h * f);
  }
  return v;
}

// Nodes of a binary tree of `depth` levels below its root whose right subtrees are `skew` levels shallower.
i64 tree_nodes(i64 depth, i64 skew) { return depth < 0 ? 0 : 1 + tree_nodes(depth - 1, skew) + tree_nodes(depth - 1 - skew, skew); }

std::vector<i64> affine(int count, i64 mul, i64 add) {
  std::vector<i64> v;
  for (i64 i = 0; i < count; ++i) v.push_back(i * mul + add);
  return v;
}

// `wc -lw` of a file (C locale), as the word-count network prints it: "LINES WORDS path".
std::string wc_line(const std::string& path) {
  FILE* pipe = popen(("LC_ALL=C wc -lw < '" + path + "'").c_str(), "r");
  long lines = -1;
  long words = -1;
  if (pipe != nullptr) {
    if (std::fscanf(pipe, "%ld %ld", &lines, &words) != 2) lines = words = -1;
    pclose(pipe);
  }
  return std::to_string(lines) + " " + std::to_string(words) + " " + path;
}

// What each config prints, computed from what it means rather than recorded from a run.
const std::map<std::string, Expected>& expected() {
  static const std::map<std::string, Expected> table = {
      {"chain-backwards.yaml",
       {{{"stages", "2000"}, {"count", "100"}}, [] { return std::vector<std::string>{sink_line("backwards", affine(100, 1, 2000))}; }}},
      {"fibonacci.yaml", {{}, [] { return std::vector<std::string>{sink_line("fibonacci", fibonacci(90))}; }}},
      {"fork-join.yaml",
       {{{"count", "20000"}, {"branches", "5"}}, [] { return std::vector<std::string>{sink_line("fork-join", affine(20000, 3, 0))}; }}},
      {"hamming.yaml", {{{"count", "1000"}}, [] { return std::vector<std::string>{sink_line("hamming", hamming(1000))}; }}},
      {"pipeline.yaml",
       {{{"count", "20000"}, {"stages", "6"}}, [] { return std::vector<std::string>{sink_line("pipeline", affine(20000, 1, 6))}; }}},
      {"ring.yaml", {{{"nodes", "12"}, {"laps", "200"}}, [] { return std::vector<std::string>{"node[0]: laps=200 hops=2400"}; }}},
      {"unbalanced-pipeline.yaml",
       {{{"count", "3000"}, {"heavy_us", "2"}}, [] { return std::vector<std::string>{sink_line("unbalanced", affine(3000, 1, 8))}; }}},
      {"wordcount.yaml",
       {{{"input", kpn::test::source_dir() + "/README.md"}},
        [] { return std::vector<std::string>{wc_line(kpn::test::source_dir() + "/README.md")}; }}},
      {"tree.yaml", {{{"depth", "10"}, {"skew", "1"}, {"work_us", "1"}},
                     [] { return std::vector<std::string>{"root: nodes=" + std::to_string(tree_nodes(10, 1))}; }}},
      {"scatter-gather.yaml",
       {{{"workers", "8"}, {"rounds", "20"}, {"work_us", "10"}},
        [] { return std::vector<std::string>{"master: rounds=20 workers=8 replies=160"}; }}},
  };
  return table;
}

std::vector<std::string> config_files() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kpn::test::source_dir() + "/configs")) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("the independently computed results agree with known values", "[networks]") {
  CHECK(sink_line("fibonacci", fibonacci(90)) == "fibonacci: count=90 sum=7540113804746346428 hash=4dc021b336294fdc");
  CHECK(sink_line("fork-join", affine(100000, 3, 0)).find("sum=14999850000 ") != std::string::npos);
  const auto h = hamming(1691);
  CHECK(h[19] == 36);
  CHECK(h[1690] == 2125764000);
}

TEST_CASE("every file in configs/ has a known result", "[networks]") {
  const auto files = config_files();
  REQUIRE(files.size() >= 5);
  for (const auto& name : files) {
    CAPTURE(name);
    CHECK(expected().count(name) == 1);
  }
}

TEST_CASE("every file in configs/ validates with its defaults", "[networks]") {
  for (const auto& name : config_files()) {
    CAPTURE(name);
    const auto topology = kpn::load_topology_file(kpn::test::source_dir() + "/configs/" + name);
    const auto net = kpn::resolve(topology, {});
    CHECK_FALSE(net.processes.empty());
    // tree.yaml declares one process, which spawns the rest: its network has no channel to declare.
    if (name != "tree.yaml") CHECK_FALSE(net.channels.empty());
  }
}

TEST_CASE("every file in configs/ prints its known result under ws-cur, ws-last and gp on 1 and 2 workers", "[networks]") {
  for (const auto& name : config_files()) {
    auto it = expected().find(name);
    if (it == expected().end()) continue;  // reported by the test above
    const auto net = kpn::resolve(kpn::load_topology_file(kpn::test::source_dir() + "/configs/" + name), it->second.sets);
    const auto want = it->second.lines();
    for (const char* scheduler : {"ws-cur", "ws-last", "gp", "gp-static"}) {
      for (unsigned cpus : {1u, 2u}) {
        CAPTURE(name, scheduler, cpus);
        CHECK(kpn::test::run_lines(net, scheduler, cpus) == want);
      }
    }
  }
}
