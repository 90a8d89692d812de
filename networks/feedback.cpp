#include "networks/feedback.hpp"

#include <algorithm>
#include <limits>

namespace kpn {
namespace {

// Tarjan's strongly connected components, iterative (a chain of 250 000 processes would overflow the
// stack of a recursive one). Returns a component id per process.
std::vector<std::size_t> components(const ResolvedNetwork& net) {
  const std::size_t n = net.processes.size();
  std::vector<std::vector<std::size_t>> next(n);
  for (const auto& c : net.channels) next[c.from].push_back(c.to);
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
      if (e < next[v].size()) {
        const std::size_t w = next[v][e++];
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
      auto& flags = roles[p].feedback[port];
      for (std::size_t ch : channels) flags.push_back(comp[net.channels[ch].to] == comp[p]);
    }
  }
  return roles;
}

}  // namespace kpn
