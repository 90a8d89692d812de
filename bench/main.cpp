// kpn-bench: microbenchmarks of the kpn runtime. Prints, for each benchmark, the median, minimum and
// maximum over --reps repetitions and the configuration it ran under. See docs/performance.md.
//
//   build/bin/kpn-bench [--only NAME] [--scheduler NAME] [--reps N] [--json]
//
// NAME is a benchmark (primitives, yield, pingpong-1cpu, ..., chain-2cpu, timers-1cpu, timers-2cpu) or a group
// (pingpong, chain, timers).

#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <kpn.hpp>

#include "benchmarks.hpp"

namespace {

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string one, five, fifteen;
  f >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kpn_bench;
  struct Entry {
    std::string name;
    std::function<Result(const Options&)> run;
  };
  std::vector<Entry> all{
      {"primitives", bench_primitives},
      {"yield", bench_yield},
      {"pingpong-1cpu", [](const Options& o) { return bench_pingpong(o, Placement::OneWorker); }},
      {"pingpong-2cpu", [](const Options& o) { return bench_pingpong(o, Placement::TwoWorkersPolicy); }},
      {"pingpong-2cpu-apart", [](const Options& o) { return bench_pingpong(o, Placement::TwoWorkersApart); }},
      {"spawn-1cpu", [](const Options& o) { return bench_spawn(o, 1); }},
      {"spawn-2cpu", [](const Options& o) { return bench_spawn(o, 2); }},
      {"names", bench_names},
      {"from-file", bench_from_file},
      {"chain-1cpu", [](const Options& o) { return bench_chain(o, 1); }},
      {"timers-1cpu", [](const Options& o) { return bench_timers(o, 1); }},
      {"timers-2cpu", [](const Options& o) { return bench_timers(o, 2); }},
      {"work-ceiling-1cpu", [](const Options& o) { return bench_work_ceiling(o, 1); }},
      {"work-ceiling-2cpu", [](const Options& o) { return bench_work_ceiling(o, 2); }},
      {"exchange-ceiling-2cpu", bench_exchange_ceiling},
      {"host-stalls-2cpu", [](const Options& o) { return bench_host_stalls(o, 2); }},
      {"t0-bias", bench_t0_bias},
  };
  // The chain again on every CPU of the machine, when it has more than one.
  if (const unsigned n = std::thread::hardware_concurrency(); n > 1) {
    all.push_back({"chain-" + std::to_string(n) + "cpu", [n](const Options& o) { return bench_chain(o, n); }});
  }
  std::vector<std::string> names;
  for (const auto& e : all) {
    names.push_back(e.name);
    if (const auto dash = e.name.find('-'); dash != std::string::npos) names.push_back(e.name.substr(0, dash));
  }

  Options o;
  std::string only;
  bool json = false;
  CLI::App app{"kpn-bench: microbenchmarks of the kpn runtime (median, min and max over repetitions)"};
  app.add_option("--only", only, "Run one benchmark, or one group (pingpong, chain, timers, work)")->check(CLI::IsMember(names));
  std::vector<std::string> policies;
  for (const auto& info : kpn::scheduler_list()) policies.push_back(info.name);
  app.add_option("--scheduler", o.scheduler, "Scheduling policy")
      ->check(CLI::IsMember(policies))
      ->capture_default_str();
  app.add_option("--reps", o.reps, "Repetitions per benchmark")->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_option("--t0", o.t0, "work-ceiling: iterations of the work loop per CPU second, as kpn-run --t0 (default: measured)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json", json, "One JSON object per benchmark and line");
  unsigned chain_child_cpus = 0;
  auto* child = app.add_option("--chain-child", chain_child_cpus, "Internal: one run of the chain, in a fresh program")
                    ->group("");
  CLI11_PARSE(app, argc, argv);
  if (child->count() > 0) return chain_child(chain_child_cpus, o.scheduler);

  const Host host = describe_host();
  if (!json) {
    std::printf("kpn-bench: %s, %u CPUs online, %s; load average %s; %d reps each\n\n", host.cpu_model.c_str(),
                host.cpus_online, host.kernel.c_str(), load_average().c_str(), o.reps);
  }
  try {
    for (const auto& e : all) {
      // A group is the part of a name before its first dash: "pingpong" runs every pingpong-*, while
      // "pingpong-2cpu" runs that one only (not pingpong-2cpu-apart).
      if (!only.empty() && only != e.name && e.name.substr(0, e.name.find('-')) != only) continue;
      const Result r = e.run(o);
      std::fputs(json ? (format_json(r, host) + "\n").c_str() : (format_text(r) + "\n").c_str(), stdout);
      std::fflush(stdout);
    }
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "kpn-bench: %s\n", ex.what());
    return 1;
  }
  if (!json) std::printf("load average at the end: %s\n", load_average().c_str());
  return 0;
}
