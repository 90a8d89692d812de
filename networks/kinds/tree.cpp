// A recursively spawned binary tree of processes: the recursion and imbalance cases of seeds 001 and 003.

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "networks/kinds.hpp"
#include "networks/work.hpp"
#include "runtime/this_process.hpp"

namespace kpn {
namespace {

using i64 = std::int64_t;

// What every node of one tree shares: the work per node, how many nodes are still to finish, where the last
// one reports.
struct Tree {
  std::uint64_t iterations;
  i64 skew;
  std::atomic<i64> left;
  i64 nodes;
  std::string name;
  ResultSink* results;
};

// Nodes in a tree of `depth` whose right subtrees are `skew` levels shallower than their left ones.
i64 count_nodes(i64 depth, i64 skew) {
  if (depth < 0) return 0;
  return 1 + count_nodes(depth - 1, skew) + count_nodes(depth - 1 - skew, skew);
}

void node(const std::shared_ptr<Tree>& tree, i64 depth, std::uint64_t path) {
  // Children first, so that the spawner's queue fills while it computes (what thieves take).
  if (depth > 0) {
    kpn::spawn(fmt::format("{}.{}", tree->name, 2 * path), [tree, depth, path] { node(tree, depth - 1, 2 * path); });
    if (depth - 1 - tree->skew >= 0) {
      kpn::spawn(fmt::format("{}.{}", tree->name, 2 * path + 1),
                 [tree, depth, path] { node(tree, depth - 1 - tree->skew, 2 * path + 1); });
    }
  }
  work::burn(tree->iterations, path);
  if (tree->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    tree->results->line(fmt::format("{}: nodes={}", tree->name, tree->nodes));
  }
}

KPN_REGISTER_KIND(tree, {
    .name = "tree",
    .description = "a binary tree of processes spawned recursively: each node spawns its two children, then spends "
                   "`work_us`; a right subtree is `skew` levels shallower than its left (0: balanced). When every "
                   "node has finished, the last prints 'name: nodes=N'",
    .ports = {},
    .args = {arg_int("depth", 12, "levels below the root"), arg_float("work_us", 10.0, "CPU microseconds per node"),
             arg_int("skew", 0, "how much shallower each right subtree is (imbalance)")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      const i64 depth = ctx.int_arg("depth");
      if (depth < 0 || depth > 20) throw std::invalid_argument("depth must be 0 to 20");
      const i64 skew = ctx.int_arg("skew");
      if (skew < 0) throw std::invalid_argument("skew must be >= 0");
      const double us = ctx.float_arg("work_us");
      if (us < 0) throw std::invalid_argument("work_us must be >= 0");
      auto tree = std::make_shared<Tree>();
      tree->iterations = work::iterations_for_us(us);
      tree->skew = skew;
      tree->nodes = count_nodes(depth, skew);
      tree->left.store(tree->nodes, std::memory_order_relaxed);
      tree->name = ctx.name();
      tree->results = &ctx.results();
      return [tree, depth] { node(tree, depth, 1); };
    }});

}  // namespace
}  // namespace kpn
