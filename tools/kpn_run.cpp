// kpn-run: runs a process network described in a YAML file and reports what happened.
//
//   kpn-run FILE.yaml [--cpus N] [--scheduler NAME] [--scheduler-option key=value ...] [--pin cores|pus|none] [--set key=value ...] [--stats-json PATH|-]
//                     [--stats-detail] [--log-level LEVEL] [--validate] [--dot] [--plugin LIB.so ...]
//                     [--max-capacity N] [--blocking-threads N] [--t0 N] [--trace PATH [--trace-limit N] [--trace-sample-ms MS]] [--quiet]
//   mpirun -np R kpn-run FILE.yaml --distributed [--pilot-ms N] [--peer-timeout S] [...]   (one network over R MPI ranks, docs/distributed.md)
//   kpn-run --kinds [--json] [--plugin LIB.so ...]
//   kpn-run --measure-t0 | --version
//
// Results the network's processes print go to stdout; the run's summary goes to stderr.
// Exit status: 0 success; 1 the network failed at run time (a process threw, or a deadlock), or its
// results could not be written; 2 the command line or the file is wrong (an output path that cannot be
// written is found before the run); 128 + N when stopped by signal N (SIGINT: 130, SIGTERM: 143), after
// printing the report so far.

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <stdexcept>
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
#include "tools/runner/exit_status.hpp"
#include "tools/runner/kind_catalogue.hpp"
#include "tools/runner/options.hpp"
#include "tools/runner/output_files.hpp"
#include "tools/runner/plugins.hpp"
#include "tools/runner/stop_signals.hpp"

#ifdef KPN_HAVE_MPI
#include "distributed/run.hpp"
#endif

#ifndef KPN_VERSION
#error "KPN_VERSION must be defined by the build (tools/CMakeLists.txt, from project(kpn VERSION ...))"
#endif

namespace kpn_run {
namespace {

std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--set", "expected key=value, got '" + s + "'");
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

std::string report_json(const Options& opt, const kpn::ResolvedNetwork& net, const kpn::RunReport& report,
                        const std::string& status, const std::string& error,
                        const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  std::string params = "{";
  for (std::size_t i = 0; i < net.params.size(); ++i) {
    params += fmt::format("{}{}:{}", i ? "," : "", kpn::json_string(net.params[i].first), kpn::json_string(net.params[i].second));
  }
  params += "}";
  std::vector<std::pair<std::string, std::string>> prefix = {
      {"kpn_version", kpn::json_string(KPN_VERSION)},
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
  prefix.insert(prefix.end(), extra.begin(), extra.end());
  // Names from the file are valid UTF-8 (the loader checks), but --set values and the file's own path
  // come from the command line as bytes.
  return kpn::utf8_sanitized(report.to_json(opt.stats_detail, prefix)) + "\n";
}

int run(const Options& opt) {
  if (!opt.log_level.empty()) kpn::set_log_level(opt.log_level);
  if (opt.measure_t0) {
    // The same measurement a run makes at start when a kind spends CPU and no --t0 is given.
    std::cout << fmt::format("{:.0f}\n", kpn::work::measure_iterations_per_second());
    return kExitOk;
  }
  if (opt.t0 > 0) kpn::work::set_iterations_per_second(opt.t0);
  if (!opt.stats_json.empty()) check_writable("--stats-json", opt.stats_json);
  if (opt.trace == "-") throw CLI::ValidationError("--trace", "needs a file: stdout carries the network's results");
  if (!opt.trace.empty()) check_writable("--trace", opt.trace);
  for (const auto& plugin : opt.plugins) {
    if (const std::string error = load_plugin(plugin); !error.empty()) {
      std::cerr << "kpn-run: cannot load plugin '" << plugin << "': " << error << "\n";
      return kExitBadInput;
    }
  }
  if (opt.kinds) {  // after the plugins, so that their kinds are listed too
    write_text("-", opt.json ? describe_kinds_json() : describe_kinds());
    return kExitOk;
  }
  if (opt.json) throw CLI::ValidationError("--json", "applies only with --kinds");
  // A wrong scheduler name or option is a command-line error (std::invalid_argument: exit 2, naming the
  // known names or the policy's allowed keys and values): find it before loading anything.
  kpn::SchedulerOptions scheduler_options;
  for (const std::string& o : opt.scheduler_options) scheduler_options.push_back(kpn::parse_scheduler_option(o));
  std::unique_ptr<kpn::Scheduler> scheduler = kpn::make_scheduler(opt.scheduler, scheduler_options);

  // Errors of loading and of resolving are reported together: resolve() throws both lists.
  const kpn::Topology topology = kpn::read_topology_file(opt.file);
  const kpn::ResolvedNetwork resolved = kpn::resolve(topology, parse_sets(opt.sets));
  if (opt.validate) {
    // Kinds check their own arguments (a negative count) when they make their processes: build the network
    // too, without running it, so that --validate accepts exactly what a run would.
    kpn::ResultSink discard([](std::string_view) {});
    (void)kpn::build_network(resolved, discard);
    write_text("-", fmt::format("{}: ok: network '{}', {} processes, {} channels\n", opt.file, resolved.name,
                                resolved.processes.size(), resolved.channels.size()));
    return kExitOk;
  }
  if (opt.dot) {
    write_text("-", kpn::to_dot(resolved));
    return kExitOk;
  }

  // The first error writing the network's results to stdout (0: none), reported after the run.
  std::atomic<int> results_error{0};
  kpn::ResultSink results = stdout_results(results_error);
  kpn::Network network = kpn::build_network(resolved, results);
  // --pin was checked against the names when parsed.
  const kpn::PinMode pin = kpn::parse_pin_mode(opt.pin).value_or(kpn::PinMode::cores);
  kpn::Runtime runtime({.cpus = opt.cpus,
                        .scheduler = opt.scheduler,
                        .pin = pin,
                        .max_capacity = opt.max_capacity,
                        .trace = opt.trace,
                        .trace_limit = opt.trace_limit,
                        .trace_sample_ms = opt.trace_sample_ms,
                        .blocking_threads = opt.blocking_threads},
                       std::move(scheduler));
  const StopSignals stop_signals(runtime);
  // Results and the report are written after the run; a failure to write them is reported with the
  // run's own outcome, and makes the exit status 1.
  auto finish_run = [&](const kpn::RunReport& report, const char* status, const std::string& error, int code) {
    if (const int err = results_error.load(); err != 0) {
      std::cerr << fmt::format("kpn-run: cannot write the network's results to stdout: {} (the run itself: {}, exit status {})\n",
                               std::strerror(err), status, code);
      code = kExitRunFailed;
    }
    if (!report.trace_error.empty()) {
      std::cerr << fmt::format("kpn-run: --trace: {} (the run itself: {}, exit status {})\n", report.trace_error, status, code);
      code = kExitRunFailed;
    } else if (report.trace_dropped > 0) {
      std::cerr << fmt::format("kpn-run: --trace: the trace is cut: {} events past --trace-limit {} were dropped\n",
                               report.trace_dropped, opt.trace_limit);
    }
    if (opt.stats_json.empty()) return code;
    try {
      write_text(opt.stats_json, report_json(opt, resolved, report, status, error));
    } catch (const WriteError& e) {
      std::cerr << fmt::format("kpn-run: --stats-json: {} (the run itself: {}, exit status {})\n", e.what(), status, code);
      return kExitRunFailed;
    }
    return code;
  };
  try {
    const kpn::RunReport report = runtime.run(network);
    if (!opt.quiet) std::cerr << report.summary();
    return finish_run(report, "ok", "", kExitOk);
  } catch (const kpn::RunError& e) {
    const bool interrupted = dynamic_cast<const kpn::Interrupted*>(&e) != nullptr;
    const std::string message =
        interrupted ? fmt::format("interrupted by {}", stop_signal() == SIGTERM ? "SIGTERM" : "SIGINT") : std::string(e.what());
    std::cerr << "kpn-run: " << message << "\n";
    // By convention a program stopped by signal N exits with 128 + N.
    const int code = interrupted ? 128 + (stop_signal() != 0 ? stop_signal() : SIGINT) : kExitRunFailed;
    if (!e.report()) return code;
    if (!opt.quiet) std::cerr << e.report()->summary();
    const char* status = interrupted                                               ? "interrupted"
                         : dynamic_cast<const kpn::DeadlockError*>(&e) != nullptr ? "deadlock"
                                                                                   : "failed";
    return finish_run(*e.report(), status, message, code);
  }
}

#ifdef KPN_HAVE_MPI
// mpirun -np R kpn-run FILE --distributed: kpn::distributed::run (distributed/run.hpp) with the runner's
// options; rank 0 writes --stats-json. Every rank returns the same exit status: the largest of the ranks'
// (the runner's usual codes), so mpirun's is it.
int run_distributed(const Options& opt, int& argc, char**& argv) {
  namespace d = kpn::distributed;
  if (!opt.log_level.empty()) kpn::set_log_level(opt.log_level);
  if (opt.t0 > 0) kpn::work::set_iterations_per_second(opt.t0);
  std::optional<d::Session> session;
  try {
    session.emplace(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "kpn-run: --distributed: " << e.what() << "\n";
    return kExitBadInput;
  }
  d::NetworkSource source = d::file_source(opt.file, opt.sets);
  // --stats-json is checked where it is written, on rank 0, as a step every rank agrees on.
  source.resolve = [resolve = std::move(source.resolve), &opt, rank = session->rank()] {
    if (!opt.stats_json.empty() && rank == 0) {
      try {
        check_writable("--stats-json", opt.stats_json);
      } catch (const CLI::ValidationError& e) {
        throw std::invalid_argument(e.what());
      }
    }
    return resolve();
  };
  d::RunOptions ro;
  ro.runtime = kpn::RuntimeOptions{.cpus = opt.cpus,
                                   .scheduler = opt.scheduler,
                                   .pin = kpn::parse_pin_mode(opt.pin).value_or(kpn::PinMode::cores),
                                   .max_capacity = opt.max_capacity,
                                   .blocking_threads = opt.blocking_threads};
  for (const std::string& o : opt.scheduler_options) {
    try {
      ro.runtime.scheduler_options.push_back(kpn::parse_scheduler_option(o));
    } catch (const std::invalid_argument& e) {
      std::cerr << fmt::format("kpn-run: rank {}: {}\n", session->rank(), e.what());
      return kExitBadInput;  // the same command line on every rank: every rank stops here
    }
  }
  ro.peer_timeout_s = opt.peer_timeout_s;
  ro.pilot_ms = opt.pilot_ms;
  ro.quiet = opt.quiet;
  ro.program = "kpn-run";
  std::optional<StopSignals> stop_signals;
  ro.on_runtime = [&stop_signals](kpn::Runtime* rt) {
    if (rt != nullptr) stop_signals.emplace(*rt);
    else stop_signals.reset();
  };
  ro.stop_signal = [] { return stop_signal(); };
  ro.on_report = [&](const d::Outcome& outcome) {
    if (opt.stats_json.empty()) return outcome.exit_code;
    try {
      write_text(opt.stats_json, report_json(opt, *outcome.network, *outcome.report, outcome.status, outcome.error,
                                             {{"distributed", outcome.distributed_json}}));
    } catch (const std::exception& e) {
      std::cerr << fmt::format("kpn-run: --stats-json: {} (the run itself: {}, exit status {})\n", e.what(), outcome.status,
                               outcome.exit_code);
      return kExitRunFailed;
    }
    return outcome.exit_code;
  };
  return d::run(*session, source, ro).exit_code;
}
#endif

}  // namespace
}  // namespace kpn_run

int main(int argc, char** argv) {
  using namespace kpn_run;
  Options opt;
  CLI::App app{"kpn-run: runs a Kahn process network described in a YAML file"};
  CLI::Option* file = define_options(app, opt);
  app.footer(catalogue());
  // Let --kinds and --measure-t0 work without a file.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--kinds" || arg == "--measure-t0" || arg == "--version") file->required(false);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  if (!init_stop_signals()) {
    std::cerr << "kpn-run: sem_init: " << std::strerror(errno) << "\n";
    return kExitRunFailed;
  }
  if (opt.pilot_ms != 0 && !opt.distributed) {
    std::cerr << "kpn-run: --pilot-ms applies only with --distributed (it places the processes on MPI ranks)\n";
    return kExitBadInput;
  }
  if (opt.distributed) {
    // Checked before MPI starts, so that a wrong command line is an error at once, not a hang.
    const char* other = opt.kinds ? "--kinds" : opt.measure_t0 ? "--measure-t0" : opt.validate ? "--validate" : opt.dot ? "--dot"
                        : !opt.trace.empty() ? "--trace" : !opt.plugins.empty() ? "--plugin" : nullptr;
    if (other != nullptr) {
      std::cerr << "kpn-run: --distributed cannot be combined with " << other << " (docs/distributed.md)\n";
      return kExitBadInput;
    }
#ifdef KPN_HAVE_MPI
    if (!kpn::distributed::launched_by_mpi()) {
      std::cerr << "kpn-run: --distributed needs an MPI launcher: run it as mpirun -np R " << argv[0]
                << " FILE --distributed (no OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK in the environment)\n";
      return kExitBadInput;
    }
    try {
      return run_distributed(opt, argc, argv);
    } catch (const std::exception& e) {
      std::cerr << "kpn-run: " << e.what() << "\n";
      return kExitRunFailed;
    }
#else
    std::cerr << "kpn-run: --distributed: this kpn-run was built without MPI (KPN_MPI=OFF, or no MPI found; docs/distributed.md)\n";
    return kExitBadInput;
#endif
  }
  try {
    return run(opt);
  } catch (const WriteError& e) {
    std::cerr << "kpn-run: " << e.what() << "\n";
    return kExitRunFailed;
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
