#include "tools/runner/options.hpp"

#include <CLI/CLI.hpp>

#ifndef KPN_VERSION
#error "KPN_VERSION must be defined by the build (tools/CMakeLists.txt, from project(kpn VERSION ...))"
#endif

namespace kpn_run {

CLI::Option* define_options(CLI::App& app, Options& opt) {
  CLI::Option* file = app.add_option("file", opt.file, "the network's YAML file")->required();
  app.add_option("--cpus", opt.cpus, "workers (kernel threads, one per CPU); default: every CPU")->check(CLI::Range(0u, 4096u));
  app.add_option("--scheduler", opt.scheduler, "scheduling policy (see the list below)")->capture_default_str();
  app.add_option("--pin", opt.pin,
                 "where workers are pinned: cores (one per physical core first, then hyperthreads, NUMA nodes in turn), "
                 "pus (hwloc's logical order) or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"cores", "pus", "none"}));
  app.add_option("--scheduler-option", opt.scheduler_options,
                 "a setting of the policy: --scheduler-option key=value (repeatable; e.g. speed-balance's interval_ms=20)")
      ->allow_extra_args(false);
  app.add_option("--set", opt.sets, "override a parameter of the file: --set key=value (repeatable)")->take_all();
  // `--stats-json -q` is a forgotten PATH, not a file named "-q".
  const CLI::Validator not_an_option(
      [](std::string& v) -> std::string {
        if (v.size() > 1 && v[0] == '-') return "'" + v + "' looks like an option, not a path (for a file of that name, write ./" + v + ")";
        return "";
      },
      "PATH");
  app.add_option("--stats-json", opt.stats_json, "write the run's statistics as one JSON object to PATH, or - for stdout")
      ->check(not_an_option);
  app.add_option("--trace", opt.trace,
                 "write an execution trace (Chrome trace-event JSON: open it in ui.perfetto.dev) to PATH; see docs/tracing.md")
      ->check(not_an_option);
  app.add_option("--trace-limit", opt.trace_limit, "most events the trace keeps; past it, events are counted as dropped")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32));
  app.add_option("--trace-sample-ms", opt.trace_sample_ms, "period of the trace's channel fill-level samples, in milliseconds")
      ->capture_default_str()
      ->check(CLI::Range(1u, 60'000u));
  app.add_flag("--stats-detail", opt.stats_detail, "include per-process and per-channel statistics in the JSON");
  app.add_option("--log-level", opt.log_level, "trace, debug, info, warn (default), error, critical or off");
  app.add_flag("--validate", opt.validate, "check the file and exit");
  app.add_flag("--dot", opt.dot, "print the network as Graphviz DOT and exit");
  app.add_flag("--quiet,-q", opt.quiet, "do not print the summary");
  // One library per --plugin: a list would swallow the file named after it (kpn-run --plugin x.so net.yaml -q).
  app.add_option("--plugin", opt.plugins, "load process kinds from a shared library (repeatable); a bare file name is also looked for in "
                 "$KPN_PLUGIN_PATH and the installed plugin folder")->allow_extra_args(false);
  app.add_option("--t0", opt.t0, "iterations of the work loop per CPU second (default: measured at start)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-capacity", opt.max_capacity,
                 "artificial deadlocks grow the smallest full channel (doubling) up to this many messages; "
                 "1 turns every deadlock into an error")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32));
  app.add_option("--blocking-threads", opt.blocking_threads,
                 "most kernel threads running blocking calls at once (file and pipe I/O of lines.read and lines.write); "
                 "started on demand")
      ->capture_default_str()
      ->check(CLI::Range(1u, kpn::config::kMaxBlockingThreads));
  app.add_flag("--distributed", opt.distributed,
               "run one network over the ranks of an MPI job: mpirun -np R kpn-run FILE --distributed (docs/distributed.md)");
  app.add_option("--peer-timeout", opt.peer_timeout_s,
                 "--distributed: seconds a rank may be silent before the others stop with 'rank N stopped answering'")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 3600.0));
  app.add_option("--pilot-ms", opt.pilot_ms,
                 "--distributed: place the processes by the CPU time and messages of a pilot run of the whole network on rank 0, "
                 "this many milliseconds long (default 0: by the file's weight hints, or equal weights)")
      ->check(CLI::Range(1u, 60'000u));
  app.add_flag("--kinds", opt.kinds, "describe every process kind (ports, arguments), with --plugin's, and exit");
  app.add_flag("--json", opt.json, "with --kinds: print the description as one JSON object");
  app.set_version_flag("--version", std::string("kpn-run ") + KPN_VERSION);
  app.add_flag("--measure-t0", opt.measure_t0,
               "measure T0 (iterations of the work loop per CPU second) as a run does, print it, and exit");
  return file;
}

}  // namespace kpn_run
