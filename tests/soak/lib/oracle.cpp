#include "oracle.hpp"

#include <algorithm>

namespace kpn::soak {

std::vector<std::vector<u64>> expected_outputs(const NetSpec& net) {
  std::vector<std::vector<u64>> streams(net.capacities.size());
  std::vector<std::vector<u64>> sinks;
  // Topological order: every node's inputs are complete when it is reached.
  for (const Node& n : net.nodes) {
    switch (n.kind) {
      case NodeKind::Source:
        for (u64 i = 0; i < n.count; ++i) streams[n.outs[0]].push_back(source_value(n.salt, i));
        break;
      case NodeKind::Map:
        for (u64 x : streams[n.ins[0]]) streams[n.outs[0]].push_back(map_value(n.salt, x));
        break;
      case NodeKind::Filter:
        for (u64 x : streams[n.ins[0]]) {
          if (filter_keeps(n.salt, x)) streams[n.outs[0]].push_back(x);
        }
        break;
      case NodeKind::Fork:
        streams[n.outs[0]] = streams[n.ins[0]];
        streams[n.outs[1]] = streams[n.ins[0]];
        break;
      case NodeKind::Join: {
        const auto& a = streams[n.ins[0]];
        const auto& b = streams[n.ins[1]];
        auto& out = streams[n.outs[0]];
        for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
          if (i < a.size()) out.push_back(a[i]);
          if (i < b.size()) out.push_back(b[i]);
        }
        break;
      }
      case NodeKind::Loop:
        for (u64 x : streams[n.ins[0]]) {
          u64 acc = 0;
          for (u64 j = 0; j < n.burst; ++j) {
            u64 v = loop_send(n.salt, x, j);
            for (u64 s = 0; s < n.ring; ++s) v = ring_stage(n.salt, s, v);
            acc = loop_fold(acc, v);
          }
          streams[n.outs[0]].push_back(acc);
        }
        break;
      case NodeKind::Spawner:
        for (u64 x : streams[n.ins[0]]) streams[n.outs[0]].push_back(helper_value(n.salt, x));
        break;
      case NodeKind::Sink: {
        const auto& in = streams[n.ins[0]];
        const std::size_t take = n.limit == 0 ? in.size() : std::min(n.limit, in.size());
        sinks.emplace_back(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(take));
        break;
      }
    }
  }
  return sinks;
}

}  // namespace kpn::soak
