#pragma once
// What one fuzz input means, shared by the libFuzzer target (kpn-fuzz-topology) and the regression test
// that replays every file of tests/fuzz/regressions/ (tests/networks/fuzz_regressions_test.cpp).
//
// An input is a command line's --set list on its first line (tokens separated by blanks, each taken as
// kpn-run takes a --set value), then a topology file. It goes through what kpn-run does before a run:
// parse_topology(), then resolve() with the overrides. A clean outcome is success or a TopologyError;
// anything else escaping (another exception, a crash, a sanitizer report) is a bug.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "networks/resolved.hpp"
#include "networks/topology_error.hpp"
#include "networks/yaml_loader.hpp"

namespace kpn::fuzz {

using Sets = std::vector<std::pair<std::string, std::string>>;

// The --set tokens of `line`, split as tools/kpn_run.cpp's parse_sets() splits a --set value: at the
// first '=', a key that is not empty. The runner refuses a token without one before loading the file
// (a command-line error, exit 2), so such tokens never reach resolve() and are skipped here.
inline Sets parse_set_line(std::string_view line) {
  Sets sets;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t end = std::min(line.find_first_of(" \t", at), line.size());
    const std::string_view token = line.substr(at, end - at);
    const std::size_t eq = token.find('=');
    if (eq != std::string_view::npos && eq != 0) sets.emplace_back(token.substr(0, eq), token.substr(eq + 1));
    at = end + 1;
  }
  return sets;
}

enum class Outcome { Resolved, Refused };

// Loads and resolves one input. Returns how it ended cleanly; lets anything unclean escape.
inline Outcome load_and_resolve(std::string_view input) {
  const std::size_t newline = input.find('\n');
  const std::string_view first = input.substr(0, newline);
  const std::string_view yaml = newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  try {
    resolve(parse_topology(yaml, "fuzz.yaml"), parse_set_line(first));
    return Outcome::Resolved;
  } catch (const TopologyError&) {
    return Outcome::Refused;
  }
}

}  // namespace kpn::fuzz
