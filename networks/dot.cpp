#include "networks/dot.hpp"

#include <fmt/format.h>

namespace kpn {
namespace {
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}
}  // namespace

std::string to_dot(const ResolvedNetwork& network) {
  std::string s = fmt::format("digraph {} {{\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n", quoted(network.name));
  for (std::size_t i = 0; i < network.processes.size(); ++i) {
    const auto& p = network.processes[i];
    s += fmt::format("  p{} [label={}];\n", i, quoted(p.name + "\\n" + p.kind->name));
  }
  for (const auto& c : network.channels) {
    s += fmt::format("  p{} -> p{} [label={}];\n", c.from, c.to,
                     quoted(fmt::format("{} > {} ({})", c.from_port, c.to_port, c.capacity)));
  }
  return s + "}\n";
}

}  // namespace kpn
