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

#include <dlfcn.h>
#include <semaphore.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
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
#include "runtime/config.hpp"
#include "runtime/json.hpp"
#include "runtime/log.hpp"

#ifdef KPN_HAVE_MPI
#include "distributed/run.hpp"
#endif

namespace {

#ifndef KPN_VERSION
#error "KPN_VERSION must be defined by the build (tools/CMakeLists.txt, from project(kpn VERSION ...))"
#endif

// The runtime a SIGINT or SIGTERM should stop, and the signal that came. Runtime::interrupt() acts only on
// a run in progress, so a signal that lands between installing the handler and the start of the run
// would be lost: the handler also posts g_signal_posted, and a forwarder thread (SignalForwarder) repeats
// the interrupt until run() returns.
std::atomic<kpn::Runtime*> g_runtime{nullptr};
volatile std::sig_atomic_t g_signal = 0;
sem_t g_signal_posted;

extern "C" void on_stop_signal(int sig) {
  g_signal = sig;
  sem_post(&g_signal_posted);  // async-signal-safe
  if (kpn::Runtime* rt = g_runtime.load()) rt->interrupt();
  // A second signal ends the program at once (a process that never blocks cannot be stopped politely).
  std::signal(sig, SIG_DFL);
}

// Waits (without polling) for a stop signal, then interrupts the runtime every millisecond until the run
// has returned: whichever of the signal and the start of the run comes first, the run is stopped.
class SignalForwarder {
 public:
  explicit SignalForwarder(kpn::Runtime& rt) : thread_([this, &rt] {
    while (sem_wait(&g_signal_posted) != 0 && errno == EINTR) {
    }
    while (!done_.load()) {
      if (g_signal != 0) rt.interrupt();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }) {}
  ~SignalForwarder() {
    done_.store(true);
    sem_post(&g_signal_posted);
    thread_.join();
  }
  SignalForwarder(const SignalForwarder&) = delete;
  SignalForwarder& operator=(const SignalForwarder&) = delete;

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// While it lives, SIGINT and SIGTERM stop `rt`'s run (the forwarder is started before the handlers, so a
// signal finds it waiting); afterwards they are back to their defaults.
class StopSignals {
 public:
  explicit StopSignals(kpn::Runtime& rt) : forwarder_(rt) {
    g_runtime.store(&rt);
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
  }
  ~StopSignals() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    g_runtime.store(nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  SignalForwarder forwarder_;
};

// The network's results, a line each on stdout; the first write error (errno, 0: none) goes to `error`,
// reported after the run.
kpn::ResultSink stdout_results(std::atomic<int>& error) {
  return kpn::ResultSink([&error](std::string_view line) {
    errno = 0;
    const bool written = std::fwrite(line.data(), 1, line.size(), stdout) == line.size() && std::fputc('\n', stdout) != EOF &&
                         std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
    int none = 0;
    if (!written) error.compare_exchange_strong(none, errno != 0 ? errno : EIO);
  });
}

constexpr int kExitOk = 0;
constexpr int kExitRunFailed = 1;
constexpr int kExitBadInput = 2;

struct Options {
  std::string file;
  unsigned cpus = 0;
  std::string scheduler = kpn::config::kDefaultScheduler;
  std::string pin = "cores";
  std::vector<std::string> scheduler_options;  // key=value, handed to the policy (it validates them)
  std::vector<std::string> sets;
  std::string stats_json;
  std::string trace;
  std::size_t trace_limit = kpn::config::kTraceLimit;
  unsigned trace_sample_ms = kpn::config::kTraceSampleMs;
  bool stats_detail = false;
  std::string log_level;
  bool validate = false;
  bool dot = false;
  bool quiet = false;
  std::vector<std::string> plugins;
  double t0 = 0;
  std::size_t max_capacity = std::size_t{1} << 20;
  unsigned blocking_threads = kpn::config::kBlockingThreads;
  bool kinds = false;
  bool json = false;
  bool measure_t0 = false;
  bool distributed = false;
  double peer_timeout_s = 10.0;  // --distributed: a rank silent this long is lost (distributed/comm.hpp)
  unsigned pilot_ms = 0;         // --distributed: place by a pilot run of this many ms (distributed/pilot.hpp)
};

// Writing a result failed (a full disk, a closed pipe): not the network's fault, but not success either.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to `path` ("-": stdout), checking every write, the flush and the close.
void write_text(const std::string& path, const std::string& text) {
  const bool to_stdout = path == "-";
  std::FILE* f = to_stdout ? stdout : std::fopen(path.c_str(), "w");
  if (f == nullptr) throw WriteError(fmt::format("cannot open '{}' for writing: {}", path, std::strerror(errno)));
  int err = 0;
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) err = errno;
  if (std::fflush(f) != 0 && err == 0) err = errno;
  if (std::ferror(f) != 0 && err == 0) err = EIO;
  if (!to_stdout && std::fclose(f) != 0 && err == 0) err = errno;
  if (err != 0) throw WriteError(fmt::format("cannot write {}: {}", to_stdout ? "to stdout" : "'" + path + "'", std::strerror(err)));
}

// Finds before the run what would make writing `path` fail for certain: a missing directory, a
// directory in its place, no permission. (A full disk shows only when writing: write_text reports it.)
void check_writable(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  if (path == "-") return;
  auto fail = [&](const std::string& why) {
    throw CLI::ValidationError(option, fmt::format("cannot write '{}': {}", path, why));
  };
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (fs::is_directory(st)) fail("it is a directory");
    if (::access(path.c_str(), W_OK) != 0) fail(std::strerror(errno));
    return;
  }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const auto ds = fs::status(dir, ec);
  if (!fs::exists(ds)) fail(fmt::format("the directory '{}' does not exist", dir.string()));
  if (!fs::is_directory(ds)) fail(fmt::format("'{}' is not a directory", dir.string()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0) fail(fmt::format("cannot create a file in '{}': {}", dir.string(), std::strerror(errno)));
}

// A plugin's static constructors (its kinds' registrations among them) run inside dlopen(). An exception
// thrown there cannot be caught around the call (it would have to unwind through the dynamic loader, which
// ends in std::terminate), so while a plugin loads, terminating means that plugin failed: say which, and
// exit 2 as for any plugin that cannot be loaded. Nothing has been written to stdout yet, and the loader's
// lock is still held, so the process ends without running exit handlers.
const char* g_loading_plugin = nullptr;

[[noreturn]] void on_terminate_while_loading() {
  std::string what = "an exception that is not a std::exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
  }
  std::fprintf(stderr, "kpn-run: plugin '%s' failed while loading: %s\n", g_loading_plugin, what.c_str());
  std::fflush(stderr);
  std::_Exit(kExitBadInput);
}

class PluginLoadGuard {
 public:
  explicit PluginLoadGuard(const std::string& plugin) {
    g_loading_plugin = plugin.c_str();
    previous_ = std::set_terminate(on_terminate_while_loading);
  }
  ~PluginLoadGuard() {
    std::set_terminate(previous_);
    g_loading_plugin = nullptr;
  }
  PluginLoadGuard(const PluginLoadGuard&) = delete;
  PluginLoadGuard& operator=(const PluginLoadGuard&) = delete;

 private:
  std::terminate_handler previous_ = nullptr;
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

std::string json_value(const kpn::Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>) return kpn::json_string(x);
        else if constexpr (std::is_same_v<T, double>) return fmt::format("{}", x);  // finite: parse_value refuses others
        else return fmt::format("{}", x);
      },
      v);
}

// --kinds --json: the same catalogue as describe_kinds(), for tools.
std::string describe_kinds_json() {
  std::string s = fmt::format("{{\"kpn_version\":{},\"kinds\":[", kpn::json_string(KPN_VERSION));
  bool first_kind = true;
  for (const kpn::KindSpec* k : kpn::kind_list()) {
    s += fmt::format("{}{{\"name\":{},\"description\":{},\"ports\":[", first_kind ? "" : ",", kpn::json_string(k->name),
                     kpn::json_string(k->description));
    first_kind = false;
    for (std::size_t i = 0; i < k->ports.size(); ++i) {
      const auto& p = k->ports[i];
      s += fmt::format("{}{{\"name\":{},\"direction\":\"{}\",\"type\":{},\"array\":{},\"description\":{}}}", i ? "," : "",
                       kpn::json_string(p.name), p.dir == kpn::PortDir::In ? "in" : "out", kpn::json_string(p.type),
                       p.array ? "true" : "false", kpn::json_string(p.description));
    }
    s += "],\"args\":[";
    for (std::size_t i = 0; i < k->args.size(); ++i) {
      const auto& a = k->args[i];
      s += fmt::format("{}{{\"name\":{},\"type\":\"{}\",\"required\":{},\"default\":{},\"description\":{}}}", i ? "," : "",
                       kpn::json_string(a.name), kpn::to_string(a.type), a.default_value ? "false" : "true",
                       a.default_value ? json_value(*a.default_value) : "null", kpn::json_string(a.description));
    }
    s += "]}";
  }
  return kpn::utf8_sanitized(s + "]}\n");
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

#ifndef KPN_PLUGIN_DIRS
#error "KPN_PLUGIN_DIRS must be defined by the build (tools/CMakeLists.txt)"
#endif

// What dlopen() is given for --plugin LIB. A LIB with a '/' is a path, used as it is. A bare file name
// (libkpn-example-plugin.so, or kpn-example-plugin for lib<name>.so) is looked for in $KPN_PLUGIN_PATH
// (':'-separated), then in the plugin folders relative to this executable, KPN_PLUGIN_DIRS (the installed
// lib/kpn/plugins, and the build tree's lib/); found nowhere, it goes to dlopen() unchanged, which searches
// the library path as before.
std::string plugin_file(const std::string& plugin) {
  namespace fs = std::filesystem;
  if (plugin.empty() || plugin.find('/') != std::string::npos) return plugin;
  std::vector<fs::path> dirs;
  auto add_dirs = [&dirs](const std::string& list, const fs::path& base) {
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) dirs.push_back(base / list.substr(start, end - start));
      start = end + 1;
    }
  };
  if (const char* env = std::getenv("KPN_PLUGIN_PATH")) add_dirs(env, fs::path());
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) add_dirs(KPN_PLUGIN_DIRS, exe.parent_path());
  for (const auto& dir : dirs) {
    for (const auto& name : {plugin, "lib" + plugin + ".so"}) {
      const fs::path candidate = dir / name;
      if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
    }
  }
  return plugin;
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
    void* handle = nullptr;
    {
      PluginLoadGuard guard(plugin);
      handle = dlopen(plugin_file(plugin).c_str(), RTLD_NOW | RTLD_GLOBAL);
    }
    if (handle == nullptr) {
      std::cerr << "kpn-run: cannot load plugin '" << plugin << "': " << dlerror() << "\n";
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
        interrupted ? fmt::format("interrupted by {}", g_signal == SIGTERM ? "SIGTERM" : "SIGINT") : std::string(e.what());
    std::cerr << "kpn-run: " << message << "\n";
    // By convention a program stopped by signal N exits with 128 + N.
    const int code = interrupted ? 128 + (g_signal != 0 ? static_cast<int>(g_signal) : SIGINT) : kExitRunFailed;
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
  ro.stop_signal = [] { return static_cast<int>(g_signal); };
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

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"kpn-run: runs a Kahn process network described in a YAML file"};
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
  if (sem_init(&g_signal_posted, 0, 0) != 0) {
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
