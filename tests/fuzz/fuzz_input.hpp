#pragma once
// What one fuzz input means, shared by the libFuzzer target (kpn-fuzz-topology) and the regression test
// that replays every file of tests/fuzz/regressions/ (tests/networks/fuzz_regressions_test.cpp).
//
// An input is a command line's --set list on its first line (tokens separated by blanks, each taken as
// kpn-run takes a --set value), then a topology file. It goes through what `kpn-run --validate` does:
// parse_topology(), resolve() with the overrides, then build_network() (the kinds' factories check their
// own arguments) without running it. A clean outcome is success, a TopologyError, or the builder's
// std::invalid_argument naming the process; anything else escaping (another exception, a crash, a
// sanitizer report) is a bug.

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "networks/builder.hpp"
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

// Every input is resolved and built under AddressSanitizer and UndefinedBehaviorSanitizer within the fuzzer's
// -rss_limit_mb=2048 (scripts/fuzz.sh). A small file may ask for the most the limits allow, and a network of two
// million processes takes more than that; the fuzzer keeps to a tenth of kpn-run's limits (the limits before
// session 55, within which it ran from the start), which exercise the same checks.
inline constexpr ResolveLimits kFuzzLimits{100'000, 250'000, 1'000'000};

enum class Outcome { Built, Refused };

// Loads and resolves one input. Returns how it ended cleanly; lets anything unclean escape.
inline Outcome load_and_resolve(std::string_view input) {
  const std::size_t newline = input.find('\n');
  const std::string_view first = input.substr(0, newline);
  const std::string_view yaml = newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  ResolvedNetwork resolved;
  try {
    resolved = resolve(parse_topology(yaml, "fuzz.yaml"), parse_set_line(first), kFuzzLimits);
  } catch (const TopologyError&) {
    return Outcome::Refused;
  }
  ResultSink discard([](std::string_view) {});
  try {
    (void)build_network(resolved, discard);
  } catch (const TopologyError&) {
    return Outcome::Refused;  // a kind's factory refused its arguments: reported at the declaration
  } catch (const std::invalid_argument&) {
    return Outcome::Refused;
  }
  return Outcome::Built;
}

}  // namespace kpn::fuzz
