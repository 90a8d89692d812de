#include "networks/feedback.hpp"

#include <algorithm>
#include <limits>

namespace kpn {
namespace {

// Tarjan's strongly connected components, iterative (a chain of 250 000 processes would overflow the
// stack of a recursive one). Returns a component id per process.
std::vector<std::size_t> components(const ResolvedNetwork& net) {
  const std::size_t n = net.processes.size();
  // The edges out of each process as one array (compressed rows): next[first[v]] to next[first[v + 1] - 1]
  // are v's successors, in channel order. Two allocations, where a vector per process made one each.
  std::vector<std::size_t> first(n + 1, 0);
  for (const auto& c : net.channels) ++first[c.from + 1];
  for (std::size_t v = 0; v < n; ++v) first[v + 1] += first[v];
  std::vector<std::size_t> next(net.channels.size());
  {
    std::vector<std::size_t> fill(first.begin(), first.end() - 1);
    for (const auto& c : net.channels) next[fill[c.from]++] = c.to;
  }
  constexpr std::size_t kUnseen = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> index(n, kUnseen), low(n, 0), comp(n, kUnseen);
  std::vector<bool> on_stack(n, false);
  std::vector<std::size_t> stack;
  std::vector<std::pair<std::size_t, std::size_t>> work;  // (vertex, next edge to look at)
  std::size_t counter = 0;
  std::size_t comps = 0;
  for (std::size_t root = 0; root < n; ++root) {
    if (index[root] != kUnseen) continue;
    work.emplace_back(root, 0);
    while (!work.empty()) {
      auto& [v, e] = work.back();
      if (e == 0 && index[v] == kUnseen) {
        index[v] = low[v] = counter++;
        stack.push_back(v);
        on_stack[v] = true;
      }
      if (e < first[v + 1] - first[v]) {
        const std::size_t w = next[first[v] + e++];
        if (index[w] == kUnseen) {
          work.emplace_back(w, 0);
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const std::size_t done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
      if (low[done] == index[done]) {
        std::size_t w = 0;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = false;
          comp[w] = comps;
        } while (w != done);
        ++comps;
      }
    }
  }
  return comp;
}

}  // namespace

std::vector<OutputRoles> output_roles(const ResolvedNetwork& net) {
  const std::vector<std::size_t> comp = components(net);
  // Channels leaving each component, and how many of them each process writes.
  std::vector<std::size_t> exits_of_comp(net.processes.size(), 0);
  std::vector<std::size_t> exits_of_process(net.processes.size(), 0);
  for (const auto& c : net.channels) {
    if (comp[c.from] != comp[c.to]) {
      ++exits_of_comp[comp[c.from]];
      ++exits_of_process[c.from];
    }
  }
  std::vector<OutputRoles> roles(net.processes.size());
  for (std::size_t p = 0; p < net.processes.size(); ++p) {
    roles[p].cycle_has_other_exits = exits_of_comp[comp[p]] > exits_of_process[p];
    for (const auto& [port, channels] : net.processes[p].ports) {
      const PortSpec* spec = net.processes[p].kind->port(port);
      if (spec == nullptr || spec->dir != PortDir::Out) continue;
      const auto stays = [&](std::size_t ch) { return comp[net.channels[ch].to] == comp[p]; };
      // Only a port with a channel that stays in the cycle gets flags: most processes are in no cycle, and an
      // absent port means no feedback (KindContext::feedback).
      if (std::none_of(channels.begin(), channels.end(), stays)) continue;
      auto& flags = roles[p].feedback[port];
      for (std::size_t ch : channels) flags.push_back(stays(ch));
    }
  }
  return roles;
}

}  // namespace kpn
