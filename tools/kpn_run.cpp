// kpn-run: runs a process network described in a YAML file and reports what happened.
//
//   kpn-run FILE.yaml [--cpus N] [--scheduler NAME] [--set key=value ...] [--stats-json PATH|-]
//                     [--stats-detail] [--log-level LEVEL] [--validate] [--dot] [--plugin LIB.so ...]
//                     [--max-capacity N] [--t0 N] [--quiet] [--kinds]
//   kpn-run --measure-t0
//
// Results the network's processes print go to stdout; the run's summary goes to stderr.
// Exit status: 0 success; 1 the network failed at run time (a process threw, or a deadlock);
// 2 the command line or the file is wrong; 128 + N when stopped by signal N (SIGINT: 130, SIGTERM: 143),
// after printing the report so far.

#include <dlfcn.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <kpn.hpp>

#include "networks/builder.hpp"
#include "networks/dot.hpp"
#include "networks/kinds.hpp"
#include "networks/resolved.hpp"
#include "networks/topology_error.hpp"
#include "networks/work.hpp"
#include "networks/yaml_loader.hpp"
#include "runtime/json.hpp"
#include "runtime/log.hpp"

namespace {

// The runtime a SIGINT or SIGTERM should stop, and the signal that came.
std::atomic<kpn::Runtime*> g_runtime{nullptr};
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) {
  g_signal = sig;
  if (kpn::Runtime* rt = g_runtime.load()) rt->interrupt();
  // A second signal ends the program at once (a process that never blocks cannot be stopped politely).
  std::signal(sig, SIG_DFL);
}

constexpr int kExitOk = 0;
constexpr int kExitRunFailed = 1;
constexpr int kExitBadInput = 2;

struct Options {
  std::string file;
  unsigned cpus = 0;
  std::string scheduler = "ws-last";
  std::vector<std::string> sets;
  std::string stats_json;
  bool stats_detail = false;
  std::string log_level;
  bool validate = false;
  bool dot = false;
  bool quiet = false;
  std::vector<std::string> plugins;
  double t0 = 0;
  std::size_t max_capacity = std::size_t{1} << 20;
  bool kinds = false;
  bool measure_t0 = false;
};

std::string catalogue() {
  std::string s = "\nSchedulers:\n";
  for (const auto& sch : kpn::scheduler_list()) s += fmt::format("  {:<24} {}\n", sch.name, sch.description);
  s += "\nProcess kinds (kpn-run --kinds describes their ports and arguments):\n";
  for (const kpn::KindSpec* k : kpn::kind_list()) s += fmt::format("  {}\n", k->name);
  s += "\nExit status: 0 success, 1 the network failed at run time, 2 bad command line or file,\n"
       "130 / 143 stopped by SIGINT / SIGTERM (after printing the report so far).\n";
  return s;
}

std::string describe_kinds() {
  std::string s;
  for (const kpn::KindSpec* k : kpn::kind_list()) {
    s += fmt::format("{}\n  {}\n", k->name, k->description);
    for (const auto& p : k->ports) {
      s += fmt::format("  port {:<10} {} {}{}{}\n", p.name, p.dir == kpn::PortDir::In ? "in " : "out", p.type,
                       p.array ? "[]" : "", p.description.empty() ? "" : "  " + p.description);
    }
    for (const auto& a : k->args) {
      s += fmt::format("  arg  {:<10} {}{}{}\n", a.name, kpn::to_string(a.type),
                       a.default_value ? " = " + kpn::value_to_string(*a.default_value) : " (required)",
                       a.description.empty() ? "" : "  " + a.description);
    }
    s += "\n";
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--set", "expected key=value, got '" + s + "'");
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

void write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << text;
}

std::string report_json(const Options& opt, const kpn::ResolvedNetwork& net, const kpn::RunReport& report,
                        const std::string& status, const std::string& error) {
  std::string params = "{";
  for (std::size_t i = 0; i < net.params.size(); ++i) {
    params += fmt::format("{}{}:{}", i ? "," : "", kpn::json_string(net.params[i].first), kpn::json_string(net.params[i].second));
  }
  params += "}";
  std::vector<std::pair<std::string, std::string>> prefix = {
      {"network", kpn::json_string(net.name)},
      {"file", kpn::json_string(opt.file)},
      {"status", kpn::json_string(status)},
      {"params", params},
      // T0 of the work loop, if the network used it (null otherwise).
      {"t0", kpn::work::known_iterations_per_second() > 0
                 ? fmt::format("{:.6g}", kpn::work::known_iterations_per_second())
                 : std::string("null")},
  };
  if (!error.empty()) prefix.emplace_back("error", kpn::json_string(error));
  return report.to_json(opt.stats_detail, prefix) + "\n";
}

int run(const Options& opt) {
  if (!opt.log_level.empty()) kpn::set_log_level(opt.log_level);
  if (opt.measure_t0) {
    // The same measurement a run makes at start when a kind spends CPU and no --t0 is given.
    std::cout << fmt::format("{:.0f}\n", kpn::work::measure_iterations_per_second());
    return kExitOk;
  }
  if (opt.t0 > 0) kpn::work::set_iterations_per_second(opt.t0);
  for (const auto& plugin : opt.plugins) {
    if (dlopen(plugin.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      std::cerr << "kpn-run: cannot load plugin '" << plugin << "': " << dlerror() << "\n";
      return kExitBadInput;
    }
  }
  if (opt.kinds) {  // after the plugins, so that their kinds are listed too
    std::cout << describe_kinds();
    return kExitOk;
  }
  // A wrong scheduler name is a command-line error: find it before loading anything.
  std::unique_ptr<kpn::Scheduler> scheduler = kpn::make_scheduler(opt.scheduler);

  const kpn::Topology topology = kpn::load_topology_file(opt.file);
  const kpn::ResolvedNetwork resolved = kpn::resolve(topology, parse_sets(opt.sets));
  if (opt.validate) {
    // Kinds check their own arguments (a negative count) when they make their processes: build the network
    // too, without running it, so that --validate accepts exactly what a run would.
    kpn::ResultSink discard([](std::string_view) {});
    (void)kpn::build_network(resolved, discard);
    std::cout << fmt::format("{}: ok: network '{}', {} processes, {} channels\n", opt.file, resolved.name,
                             resolved.processes.size(), resolved.channels.size());
    return kExitOk;
  }
  if (opt.dot) {
    std::cout << kpn::to_dot(resolved);
    return kExitOk;
  }

  kpn::ResultSink results([](std::string_view line) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  });
  kpn::Network network = kpn::build_network(resolved, results);
  kpn::Runtime runtime({.cpus = opt.cpus, .scheduler = opt.scheduler, .max_capacity = opt.max_capacity},
                       std::move(scheduler));
  g_runtime.store(&runtime);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  struct Restore {
    ~Restore() {
      std::signal(SIGINT, SIG_DFL);
      std::signal(SIGTERM, SIG_DFL);
      g_runtime.store(nullptr);
    }
  } restore;
  try {
    const kpn::RunReport report = runtime.run(network);
    if (!opt.quiet) std::cerr << report.summary();
    if (!opt.stats_json.empty()) write_text(opt.stats_json, report_json(opt, resolved, report, "ok", ""));
    return kExitOk;
  } catch (const kpn::RunError& e) {
    const bool interrupted = dynamic_cast<const kpn::Interrupted*>(&e) != nullptr;
    const std::string message =
        interrupted ? fmt::format("interrupted by {}", g_signal == SIGTERM ? "SIGTERM" : "SIGINT") : std::string(e.what());
    std::cerr << "kpn-run: " << message << "\n";
    if (e.report()) {
      if (!opt.quiet) std::cerr << e.report()->summary();
      const char* status = interrupted                                               ? "interrupted"
                           : dynamic_cast<const kpn::DeadlockError*>(&e) != nullptr ? "deadlock"
                                                                                     : "failed";
      if (!opt.stats_json.empty()) write_text(opt.stats_json, report_json(opt, resolved, *e.report(), status, message));
    }
    // By convention a program stopped by signal N exits with 128 + N.
    return interrupted ? 128 + (g_signal != 0 ? static_cast<int>(g_signal) : SIGINT) : kExitRunFailed;
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"kpn-run: runs a Kahn process network described in a YAML file"};
  CLI::Option* file = app.add_option("file", opt.file, "the network's YAML file")->required();
  app.add_option("--cpus", opt.cpus, "workers (kernel threads, one per CPU); default: every CPU")->check(CLI::Range(0u, 4096u));
  app.add_option("--scheduler", opt.scheduler, "scheduling policy (see the list below)")->capture_default_str();
  app.add_option("--set", opt.sets, "override a parameter of the file: --set key=value (repeatable)")->take_all();
  app.add_option("--stats-json", opt.stats_json, "write the run's statistics as one JSON object to PATH, or - for stdout");
  app.add_flag("--stats-detail", opt.stats_detail, "include per-process and per-channel statistics in the JSON");
  app.add_option("--log-level", opt.log_level, "trace, debug, info, warn (default), error, critical or off");
  app.add_flag("--validate", opt.validate, "check the file and exit");
  app.add_flag("--dot", opt.dot, "print the network as Graphviz DOT and exit");
  app.add_flag("--quiet,-q", opt.quiet, "do not print the summary");
  // One library per --plugin: a list would swallow the file named after it (kpn-run --plugin x.so net.yaml -q).
  app.add_option("--plugin", opt.plugins, "load process kinds from a shared library (repeatable)")->allow_extra_args(false);
  app.add_option("--t0", opt.t0, "iterations of the work loop per CPU second (default: measured at start)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-capacity", opt.max_capacity,
                 "artificial deadlocks grow the smallest full channel (doubling) up to this many messages; "
                 "1 turns every deadlock into an error")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32));
  app.add_flag("--kinds", opt.kinds, "describe every process kind (ports, arguments), with --plugin's, and exit");
  app.add_flag("--measure-t0", opt.measure_t0,
               "measure T0 (iterations of the work loop per CPU second) as a run does, print it, and exit");
  app.footer(catalogue());
  // Let --kinds and --measure-t0 work without a file.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--kinds" || arg == "--measure-t0") file->required(false);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  try {
    return run(opt);
  } catch (const kpn::TopologyError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << "error: " << d.str() << "\n";
    return kExitBadInput;
  } catch (const CLI::ValidationError& e) {
    std::cerr << "kpn-run: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "kpn-run: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "kpn-run: " << e.what() << "\n";
    return kExitRunFailed;
  }
}
