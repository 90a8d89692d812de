#include "networks/dot.hpp"

#include <fmt/format.h>

namespace kpn {
namespace {

// The text of a DOT string, escaped: '"' and '\' take a backslash (a name ending in '\' would otherwise
// escape the closing quote), and line breaks become DOT's \n.
std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
    } else if (c != '\r') {
      out += c;
    }
  }
  return out;
}

std::string quoted(const std::string& s) { return "\"" + escaped(s) + "\""; }

}  // namespace

std::string to_dot(const ResolvedNetwork& network) {
  std::string s = fmt::format("digraph {} {{\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n", quoted(network.name));
  for (std::size_t i = 0; i < network.processes.size(); ++i) {
    const auto& p = network.processes[i];
    // Two lines: DOT's own \n between the escaped parts.
    s += fmt::format("  p{} [label=\"{}\\n{}\"];\n", i, escaped(p.name), escaped(p.kind->name));
  }
  for (const auto& c : network.channels) {
    s += fmt::format("  p{} -> p{} [label={}];\n", c.from, c.to,
                     quoted(fmt::format("{} > {} ({})", c.from_port, c.to_port, c.capacity)));
  }
  return s + "}\n";
}

}  // namespace kpn
