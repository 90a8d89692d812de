#pragma once
// Helpers for the networks/ and runner tests: topologies from text, their diagnostics, running a resolved
// network and collecting what its sinks print, the sink's result line for a known stream, and running
// build/bin/kpn-run as a child process.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <kpn.hpp>

#include "networks/builder.hpp"
#include "networks/kinds.hpp"
#include "networks/resolved.hpp"
#include "networks/topology_error.hpp"
#include "networks/yaml_loader.hpp"
#include "support.hpp"

namespace kpn::test {

using Sets = std::vector<std::pair<std::string, std::string>>;

inline std::string source_dir() { return KPN_SOURCE_DIR; }
inline std::string kpn_run_path() { return std::string(KPN_BIN_DIR) + "/kpn-run"; }
inline std::string example_plugin_path() { return KPN_EXAMPLE_PLUGIN; }

inline ResolvedNetwork resolve_text(const std::string& yaml, const Sets& sets = {}) {
  return resolve(parse_topology(yaml, "t.yaml"), sets);
}

// Every diagnostic that loading and resolving `yaml` (named "t.yaml") reports; empty if it is valid.
inline std::vector<Diagnostic> errors_of(const std::string& yaml, const Sets& sets = {}) {
  try {
    resolve_text(yaml, sets);
  } catch (const TopologyError& e) {
    return e.diagnostics();
  }
  return {};
}

// The diagnostics as text, one per line, for failure messages.
inline std::string listing(const std::vector<Diagnostic>& diags) {
  std::string s;
  for (const auto& d : diags) s += d.str() + "\n";
  return s;
}

// Runs a resolved network and returns the lines its kinds printed, sorted (several sinks may print in any
// order; each sink's own line is deterministic).
inline std::vector<std::string> run_lines(const ResolvedNetwork& resolved, const std::string& scheduler, unsigned cpus) {
  std::mutex m;
  std::vector<std::string> lines;
  ResultSink sink([&](std::string_view line) {
    std::lock_guard g(m);
    lines.emplace_back(line);
  });
  Network net = build_network(resolved, sink);
  Runtime({.cpus = cpus, .scheduler = scheduler}).run(net);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// The line the built-in sink prints for a stream of values: "label: count=N sum=S hash=H", where H is the
// 64-bit FNV-1a hash of each value's 8 bytes, least significant first.
inline std::string sink_line(const std::string& label, const std::vector<std::int64_t>& values) {
  std::uint64_t h = 1469598103934665603ull;
  std::int64_t sum = 0;
  for (std::int64_t v : values) {
    sum += v;
    const auto u = static_cast<std::uint64_t>(v);
    for (int i = 0; i < 8; ++i) {
      h ^= (u >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
  return fmt::format("{}: count={} sum={} hash={:016x}", label, values.size(), sum, h);
}

// This test process's scratch directory (removed at exit), and unique file names in it.
inline const std::filesystem::path& scratch_dir() {
  static const kpn::test::ScratchDir dir("kpn-networks-tests");
  return dir.path;
}
inline std::filesystem::path scratch_file(const std::string& stem) {
  static std::atomic<int> counter{0};
  return scratch_dir() / fmt::format("{}-{}", counter++, stem);
}
inline std::filesystem::path write_scratch(const std::string& stem, const std::string& text) {
  auto path = scratch_file(stem);
  std::ofstream(path) << text;
  return path;
}
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct RunResult {
  int exit_code = -1;  // -1 if it did not exit normally (a signal)
  std::string out;
  std::string err;
};

// Runs `build/bin/kpn-run ARGS` (ARGS as a shell would split them) and captures its output.
inline RunResult kpn_run(const std::string& args) {
  const auto out = scratch_file("stdout.txt");
  const auto err = scratch_file("stderr.txt");
  const std::string cmd = fmt::format("'{}' {} >'{}' 2>'{}' </dev/null", kpn_run_path(), args, out.string(), err.string());
  const int status = std::system(cmd.c_str());
  RunResult r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = read_text(out);
  r.err = read_text(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

inline std::string quoted_path(const std::filesystem::path& p) { return "'" + p.string() + "'"; }
inline std::string config_path(const std::string& name) { return quoted_path(source_dir() + "/configs/" + name); }

}  // namespace kpn::test
