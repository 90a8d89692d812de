// The test menu of seed 003 ("Zorro: a distributed thread-pool with stealing", section 3.4), as behaviours
// every policy must have, on every registered policy and 1, 2 and 4 workers (kpn::test::all_configs()).
// Zorro's tasks become processes and its results become messages:
//   light         many empty processes, and many that send one tiny message: all finish (contention);
//   correctness   every message sent over many channels is received exactly once;
//   computation   equal work per process: all finish, and the report's counters agree with each other;
//   imbalanced    one process in eight does ten times the work: all finish, the output is Kahn's;
//   recursion     processes spawn processes: a binary tree (divide), and one that sums its subtrees back
//                 to the root over channels (divide + merge); [zorro-full] runs the latter at 16 levels.
// Zorro measures time; these check what must hold whatever the time. Sizes keep each test case to a few
// seconds in Release on a 2-CPU machine over the whole matrix, and are cut under a sanitizer.

#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

namespace {

// KPN_SANITIZER (tests/CMakeLists.txt) names the build's sanitizer, empty for none: every synchronisation,
// spawn and stack costs far more under one (ThreadSanitizer: about a millisecond per process created), so
// the same shapes run smaller.
constexpr bool kSanitized = !std::string_view(KPN_SANITIZER).empty();

constexpr std::size_t kEmptyProcesses = kSanitized ? 150 : 3'000;
constexpr std::size_t kSenders = kSanitized ? 200 : 3'000;
constexpr std::size_t kSendersPerCollector = 100;
constexpr std::size_t kChannels = kSanitized ? 16 : 64;
constexpr std::uint64_t kMessagesPerChannel = kSanitized ? 250 : 1'000;
constexpr std::size_t kEqualProcesses = 64;
constexpr std::uint32_t kEqualWork = kSanitized ? 2'000 : 20'000;  // rounds of mix() per process
constexpr std::size_t kImbalancedWorkers = 8;
constexpr std::size_t kImbalancedTasks = kSanitized ? 80 : 400;
constexpr std::uint32_t kLightTask = kSanitized ? 200 : 2'000;  // rounds of mix(); a heavy task does 10x
// Tree depths in levels (2^depth - 1 processes). Under the FIFO policies (global, local, random) a tree
// grows breadth first, so the whole divide-and-merge tree is alive at once, each node with its stack; at
// 16 levels (65,535 processes) that takes about 12 s in Release over the matrix (5.5 s for the divide
// tree), so the suite runs smaller trees and the hidden test case [zorro-full] runs 16 levels.
constexpr int kDivideDepth = kSanitized ? 8 : 14;
constexpr int kMergeDepth = kSanitized ? 8 : 13;
constexpr int kFullDepth = 16;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Deterministic CPU work: `rounds` applications of mix() (the result is used, so none is optimised away).
std::uint64_t work(std::uint64_t seed, std::uint32_t rounds) {
  for (std::uint32_t i = 0; i < rounds; ++i) seed = mix(seed);
  return seed;
}

kpn::RunReport run(const kpn::test::Config& cfg, kpn::Network& net) {
  return kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
}

std::uint64_t count_of(const std::vector<std::uint8_t>& flags, std::uint8_t value) {
  std::uint64_t n = 0;
  for (std::uint8_t f : flags) n += f == value ? 1 : 0;
  return n;
}

// Divide: node `index` (1-based, heap order: children 2i and 2i + 1) marks itself and spawns its children.
void divide(std::size_t index, int depth, std::vector<std::uint8_t>& ran) {
  ++ran[index];
  if (depth <= 1) return;
  for (std::size_t child : {2 * index, 2 * index + 1}) {
    kpn::spawn("node-" + std::to_string(child), [child, depth, &ran] { divide(child, depth - 1, ran); });
  }
}

// Divide and merge: a node spawns its children, each with a channel back to it, and sends its parent the
// size of its subtree: one for itself and what its children sent.
void subtree(int depth, kpn::Writer<std::uint64_t> parent) {
  std::uint64_t size = 1;
  if (depth > 1) {
    std::vector<kpn::Reader<std::uint64_t>> children;
    for (int c = 0; c < 2; ++c) {
      auto [tx, rx] = kpn::channel<std::uint64_t>(1);
      kpn::spawn("subtree", [depth, tx = std::move(tx)]() mutable { subtree(depth - 1, std::move(tx)); });
      children.push_back(std::move(rx));
    }
    for (auto& rx : children) {
      if (auto v = rx.read()) size += *v;
    }
  }
  parent.write(size);
}

// The divide-and-merge tree of `depth` levels under every configuration: the root's count is every node.
void check_merge_tree(int depth) {
  const std::uint64_t nodes = (std::uint64_t{1} << depth) - 1;
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus, depth);
    kpn::Network net;
    auto [tx, rx] = net.channel<std::uint64_t>(1, "root");
    std::optional<std::uint64_t> counted;  // written by the reader of the root's count only
    net.process("tree", [depth, tx = std::move(tx)]() mutable { subtree(depth, std::move(tx)); });
    net.process("counter", [rx = std::move(rx), &counted]() mutable { counted = rx.read(); });
    const kpn::RunReport report = run(cfg, net);
    REQUIRE(counted == nodes);
    REQUIRE(report.processes == nodes + 1);
    REQUIRE(report.messages == nodes);  // one per node: to its parent, or from the root to the counter
  }
}

}  // namespace

TEST_CASE("many processes that do nothing each run exactly once and the run ends", "[schedulers][zorro]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::vector<std::uint8_t> ran(kEmptyProcesses, 0);  // ran[i] written by process i only
    for (std::size_t i = 0; i < kEmptyProcesses; ++i) {
      net.process("empty-" + std::to_string(i), [&slot = ran[i]] { ++slot; });
    }
    const kpn::RunReport report = run(cfg, net);
    REQUIRE(count_of(ran, 1) == kEmptyProcesses);
    REQUIRE(report.processes == kEmptyProcesses);
    REQUIRE(report.messages == 0);
  }
}

TEST_CASE("many processes that each send one tiny message all finish and every message arrives",
          "[schedulers][zorro]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    constexpr std::size_t kCollectors = kSenders / kSendersPerCollector;
    std::vector<std::uint64_t> sums(kCollectors, 0);  // sums[c] written by collector c only
    for (std::size_t c = 0; c < kCollectors; ++c) {
      std::vector<kpn::Reader<std::uint32_t>> inputs;
      for (std::size_t k = 0; k < kSendersPerCollector; ++k) {
        const std::size_t sender = c * kSendersPerCollector + k;
        auto [tx, rx] = net.channel<std::uint32_t>(1);
        net.process("sender-" + std::to_string(sender),
                    [sender, tx = std::move(tx)]() mutable { tx.write(static_cast<std::uint32_t>(sender)); });
        inputs.push_back(std::move(rx));
      }
      net.process("collector-" + std::to_string(c), [inputs = std::move(inputs), &sum = sums[c]]() mutable {
        for (auto& rx : inputs) {
          while (auto v = rx.read()) sum += *v + 1;  // + 1: sender 0's message counts too
        }
      });
    }
    const kpn::RunReport report = run(cfg, net);
    const std::uint64_t total = std::accumulate(sums.begin(), sums.end(), std::uint64_t{0});
    REQUIRE(total == kSenders * (kSenders + 1) / 2);
    REQUIRE(report.messages == kSenders);
    REQUIRE(report.processes == kSenders + kCollectors);
  }
}

TEST_CASE("every message sent over many channels is received exactly once", "[schedulers][zorro]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    // Channel c carries the ids [c * M, (c + 1) * M); its receiver marks each id it gets in its own part of
    // `seen` and counts what it got.
    constexpr std::uint64_t kIds = kChannels * kMessagesPerChannel;
    std::vector<std::uint8_t> seen(kIds, 0);
    std::vector<std::uint64_t> received(kChannels, 0);  // received[c] written by receiver c only
    std::vector<std::uint64_t> foreign(kChannels, 0);   // ids outside the channel's range; written likewise
    for (std::size_t c = 0; c < kChannels; ++c) {
      auto [tx, rx] = net.channel<std::uint64_t>(1 + c % 8, "ids-" + std::to_string(c));
      const std::uint64_t first = c * kMessagesPerChannel;
      net.process("sender-" + std::to_string(c), [first, tx = std::move(tx)]() mutable {
        for (std::uint64_t id = first; id < first + kMessagesPerChannel; ++id) tx.write(id);
      });
      net.process("receiver-" + std::to_string(c),
                  [first, rx = std::move(rx), &seen, &got = received[c], &bad = foreign[c]]() mutable {
                    while (auto id = rx.read()) {
                      ++got;
                      if (*id < first || *id >= first + kMessagesPerChannel) {
                        ++bad;
                      } else {
                        ++seen[*id];
                      }
                    }
                  });
    }
    const kpn::RunReport report = run(cfg, net);
    REQUIRE(std::accumulate(foreign.begin(), foreign.end(), std::uint64_t{0}) == 0);
    REQUIRE(std::accumulate(received.begin(), received.end(), std::uint64_t{0}) == kIds);
    REQUIRE(count_of(seen, 1) == kIds);  // each id once: none lost, none twice
    REQUIRE(report.messages == kIds);
    REQUIRE(report.channels.size() == kChannels);
    for (const auto& ch : report.channels) {
      CAPTURE(ch.name);
      REQUIRE(ch.messages == kMessagesPerChannel);
    }
  }
}

TEST_CASE("processes doing equal work all finish and the report's counters agree with each other",
          "[schedulers][zorro]") {
  const std::uint64_t expected = work(7, kEqualWork);
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::vector<std::uint64_t> results(kEqualProcesses, 0);  // results[i] written by process i only
    for (std::size_t i = 0; i < kEqualProcesses; ++i) {
      net.process("compute-" + std::to_string(i), [&r = results[i]] { r = work(7, kEqualWork); });
    }
    const kpn::RunReport report = run(cfg, net);
    for (std::size_t i = 0; i < kEqualProcesses; ++i) {
      CAPTURE(i);
      REQUIRE(results[i] == expected);
    }

    REQUIRE(report.processes == kEqualProcesses);
    REQUIRE(report.process_details.size() == kEqualProcesses);
    std::uint64_t process_switches = 0;
    for (const auto& p : report.process_details) {
      CAPTURE(p.name);
      REQUIRE(p.switches >= 1);
      REQUIRE(p.last_worker >= 0);
      REQUIRE(p.last_worker < static_cast<int>(cfg.cpus));
      REQUIRE(p.cpu_s > 0);
      process_switches += p.switches;
    }
    REQUIRE(report.workers.size() == cfg.cpus);
    std::uint64_t worker_switches = 0, attempts = 0, steals = 0;
    double busy = 0;
    for (const auto& w : report.workers) {
      worker_switches += w.context_switches;
      attempts += w.steal_attempts;
      steals += w.steals;
      REQUIRE(w.steals <= w.steal_attempts);
      REQUIRE(w.busy_s >= 0);
      REQUIRE(w.idle_s >= 0);
      busy += w.busy_s;
    }
    // Every switch into a process is one process's switch in, on one worker.
    REQUIRE(worker_switches == report.context_switches);
    REQUIRE(process_switches == report.context_switches);
    REQUIRE(report.context_switches >= kEqualProcesses);
    REQUIRE(attempts == report.steal_attempts);
    REQUIRE(steals == report.steals);
    if (cfg.cpus == 1) REQUIRE(report.steal_attempts == 0);  // nobody to steal from
    REQUIRE(busy > 0);
    REQUIRE(report.wall_s > 0);
    REQUIRE(report.messages == 0);
  }
}

TEST_CASE("when one process in eight does ten times the work, all finish and the output is the same under every "
          "policy",
          "[schedulers][zorro]") {
  // A master deals tasks round-robin to eight workers and gathers the results in the same order. Task t is
  // heavy when t % 8 == 0, so as in Zorro's imbalanced test one worker gets every heavy task.
  auto task_result = [](std::uint64_t t) {
    return work(t, t % kImbalancedWorkers == 0 ? 10 * kLightTask : kLightTask);
  };
  std::vector<std::uint64_t> expected;
  for (std::uint64_t t = 0; t < kImbalancedTasks; ++t) expected.push_back(task_result(t));

  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::vector<kpn::Writer<std::uint64_t>> to_workers;
    std::vector<kpn::Reader<std::uint64_t>> from_workers;
    std::vector<std::uint64_t> done(kImbalancedWorkers, 0);  // tasks done, done[w] written by worker w only
    for (std::size_t w = 0; w < kImbalancedWorkers; ++w) {
      auto [task_tx, task_rx] = net.channel<std::uint64_t>(2);
      auto [result_tx, result_rx] = net.channel<std::uint64_t>(2);
      net.process("worker-" + std::to_string(w), [task_result, rx = std::move(task_rx), tx = std::move(result_tx),
                                                  &n = done[w]]() mutable {
        while (auto t = rx.read()) {
          tx.write(task_result(*t));
          ++n;
        }
      });
      to_workers.push_back(std::move(task_tx));
      from_workers.push_back(std::move(result_rx));
    }
    std::vector<std::uint64_t> output;  // written by the gatherer only
    net.process("scatter", [tx = std::move(to_workers)]() mutable {
      for (std::uint64_t t = 0; t < kImbalancedTasks; ++t) tx[t % kImbalancedWorkers].write(t);
    });
    net.process("gather", [rx = std::move(from_workers), &output]() mutable {
      for (std::uint64_t t = 0; t < kImbalancedTasks; ++t) {
        if (auto v = rx[t % kImbalancedWorkers].read()) output.push_back(*v);
      }
    });
    const kpn::RunReport report = run(cfg, net);
    REQUIRE(output == expected);
    for (std::uint64_t n : done) REQUIRE(n == kImbalancedTasks / kImbalancedWorkers);
    REQUIRE(report.messages == 2 * kImbalancedTasks);
    REQUIRE(report.processes == kImbalancedWorkers + 2);
  }
}

TEST_CASE("processes that spawn processes grow a binary tree in which every node runs once", "[schedulers][zorro]") {
  const std::size_t nodes = (std::size_t{1} << kDivideDepth) - 1;
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus, kDivideDepth);
    kpn::Network net;
    std::vector<std::uint8_t> ran(nodes + 1, 0);  // heap order, 1-based; ran[i] written by node i only
    net.process("node-1", [&ran] { divide(1, kDivideDepth, ran); });
    const kpn::RunReport report = run(cfg, net);
    REQUIRE(ran[0] == 0);
    REQUIRE(count_of(ran, 1) == nodes);
    REQUIRE(report.processes == nodes);
  }
}

TEST_CASE("a binary tree of spawned processes sends its subtree sizes up and the root counts every node",
          "[schedulers][zorro]") {
  check_merge_tree(kMergeDepth);
}

TEST_CASE("a binary tree of 65,535 spawned processes counts every node at its root", "[.][zorro-full]") {
  check_merge_tree(kFullDepth);
}
