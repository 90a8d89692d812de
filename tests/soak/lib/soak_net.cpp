#include "soak_net.hpp"

#include <fmt/format.h>

namespace kpn::soak {
namespace {

// splitmix64 as the generator: tiny, and the same sequence from every standard library (the
// <random> distributions are not specified bit for bit, and a seed must replay anywhere).
class Rng {
 public:
  explicit Rng(u64 seed) : state_(seed) {}
  u64 next() noexcept { return mix(state_ += 0x9E3779B97F4A7C15ull); }
  // Uniform enough in [0, n) for n far below 2^32.
  std::size_t below(std::size_t n) noexcept { return static_cast<std::size_t>(next() % n); }
  bool one_in(std::size_t n) noexcept { return below(n) == 0; }

 private:
  u64 state_;
};

class Generator {
 public:
  explicit Generator(u64 seed) : rng_(seed) { net_.seed = seed; }

  NetSpec run() {
    const std::size_t sources = 1 + rng_.below(3);
    for (std::size_t i = 0; i < sources; ++i) {
      Node n = node(NodeKind::Source);
      // Mostly short streams (many small networks find more shapes); one in eight is long, for races.
      n.count = rng_.one_in(10) ? 0 : 1 + rng_.below(rng_.one_in(8) ? 2000 : 150);
      n.outs.push_back(stream());
      net_.nodes.push_back(n);
    }
    const std::size_t ops = rng_.below(11);
    for (std::size_t i = 0; i < ops; ++i) step();
    // Every stream still open gets a sink, so each stream has a reader.
    while (!open_.empty()) add_sink(take());
    net_.declared_backwards = (mix(net_.seed ^ 0xD1B54A32D192ED03ull) & 1) != 0;
    return std::move(net_);
  }

 private:
  Node node(NodeKind kind) {
    Node n;
    n.kind = kind;
    n.salt = rng_.next();
    return n;
  }

  // A new stream with a small capacity (1 to 4: small buffers make processes block often).
  std::size_t stream() {
    net_.capacities.push_back(1 + rng_.below(4));
    open_.push_back(net_.capacities.size() - 1);
    return net_.capacities.size() - 1;
  }

  std::size_t take() {
    const std::size_t i = rng_.below(open_.size());
    const std::size_t s = open_[i];
    open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(i));
    return s;
  }

  void add_sink(std::size_t in) {
    Node n = node(NodeKind::Sink);
    n.ins.push_back(in);
    // One sink in three stops early, after 1 to 20 values (more than its stream has, sometimes).
    n.limit = rng_.one_in(3) ? 1 + rng_.below(20) : 0;
    net_.nodes.push_back(n);
  }

  void one_to_one(NodeKind kind) {
    Node n = node(kind);
    n.ins.push_back(take());
    if (kind == NodeKind::Loop) {
      n.ring = 1 + rng_.below(3);
      n.loop_capacity = 1 + rng_.below(2);
      // Without growth the loop holds (ring + 1) * capacity values in its channels and one in each stage;
      // a burst above that is an artificial deadlock that only Parks' rule resolves.
      const std::size_t holds = (n.ring + 1) * n.loop_capacity + n.ring;
      n.burst = 1 + rng_.below(holds + 4);
    } else if (kind == NodeKind::Spawner) {
      n.chunk = 1 + rng_.below(8);
      n.eager = rng_.one_in(2);
      n.helper_capacity = 1 + rng_.below(3);
    }
    n.outs.push_back(stream());
    net_.nodes.push_back(n);
  }

  void step() {
    switch (rng_.below(8)) {
      case 0: one_to_one(NodeKind::Map); break;
      case 1: one_to_one(NodeKind::Filter); break;
      case 2: one_to_one(NodeKind::Loop); break;
      case 3: one_to_one(NodeKind::Spawner); break;
      case 4:
      case 5: {
        Node n = node(NodeKind::Fork);
        n.ins.push_back(take());
        n.outs.push_back(stream());
        n.outs.push_back(stream());
        net_.nodes.push_back(n);
        break;
      }
      case 6: {
        if (open_.size() < 2) return one_to_one(NodeKind::Map);
        Node n = node(NodeKind::Join);
        n.ins.push_back(take());
        n.ins.push_back(take());
        n.outs.push_back(stream());
        net_.nodes.push_back(n);
        break;
      }
      default:
        // A sink in the middle of the graph; keep one stream open so the rest has something to grow on.
        if (open_.size() < 2) return one_to_one(NodeKind::Map);
        add_sink(take());
        break;
    }
  }

  Rng rng_;
  NetSpec net_;
  std::vector<std::size_t> open_;  // streams with a writer and no reader yet
};

}  // namespace

u64 mix(u64 x) noexcept {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

const char* to_string(NodeKind kind) noexcept {
  switch (kind) {
    case NodeKind::Source: return "source";
    case NodeKind::Map: return "map";
    case NodeKind::Filter: return "filter";
    case NodeKind::Fork: return "fork";
    case NodeKind::Join: return "join";
    case NodeKind::Loop: return "loop";
    case NodeKind::Spawner: return "spawner";
    case NodeKind::Sink: return "sink";
  }
  return "?";
}

std::size_t NetSpec::sinks() const {
  std::size_t n = 0;
  for (const auto& node : nodes) n += node.kind == NodeKind::Sink ? 1 : 0;
  return n;
}

std::size_t NetSpec::source_values() const {
  std::size_t n = 0;
  for (const auto& node : nodes) n += node.kind == NodeKind::Source ? node.count : 0;
  return n;
}

NetSpec generate(u64 seed) { return Generator(seed).run(); }

std::string describe(const NetSpec& net) {
  auto streams = [&](const std::vector<std::size_t>& v) {
    std::string s;
    for (std::size_t i : v) s += fmt::format("{}s{}(cap {})", s.empty() ? "" : " ", i, net.capacities[i]);
    return s.empty() ? std::string("-") : s;
  };
  std::string out = fmt::format("network of seed {}: {} nodes, {} streams{}\n", net.seed, net.nodes.size(),
                                net.capacities.size(), net.declared_backwards ? ", declared last node first" : "");
  for (std::size_t i = 0; i < net.nodes.size(); ++i) {
    const Node& n = net.nodes[i];
    std::string extra;
    switch (n.kind) {
      case NodeKind::Source: extra = fmt::format(" count={}", n.count); break;
      case NodeKind::Loop:
        extra = fmt::format(" burst={} ring={} loop_capacity={}", n.burst, n.ring, n.loop_capacity);
        break;
      case NodeKind::Spawner:
        extra = fmt::format(" chunk={} eager={} helper_capacity={}", n.chunk, n.eager, n.helper_capacity);
        break;
      case NodeKind::Sink: extra = n.limit == 0 ? " reads all" : fmt::format(" stops after {}", n.limit); break;
      default: break;
    }
    out += fmt::format("  n{} {} salt={:#x}{}: in {} -> out {}\n", i, to_string(n.kind), n.salt, extra, streams(n.ins),
                       streams(n.outs));
  }
  return out;
}

}  // namespace kpn::soak
