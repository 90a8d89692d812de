// kpn-bench: microbenchmarks of the kpn runtime. Prints, for each benchmark, the median, minimum and
// maximum over --reps repetitions and the configuration it ran under. See docs/performance.md.
//
//   build/bin/kpn-bench [--only yield|pingpong|spawn|chain] [--scheduler ws-last|ws-cur] [--reps N] [--json]

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <kpn.hpp>

#include "benchmarks.hpp"

int main(int argc, char** argv) {
  using namespace kpn_bench;
  struct Entry {
    const char* name;
    std::vector<Result> (*run)(const Options&);
  };
  // The chain forks; it goes last so that the children start from a resident set that the other
  // benchmarks have already grown as much as they will (reported as baseline_rss_mib).
  const std::vector<Entry> all{
      {"yield", bench_yield}, {"pingpong", bench_pingpong}, {"spawn", bench_spawn}, {"chain", bench_chain}};

  Options o;
  std::string only;
  bool json = false;
  CLI::App app{"kpn-bench: microbenchmarks of the kpn runtime (median, min and max over repetitions)"};
  app.add_option("--only", only, "Run one benchmark")->check(CLI::IsMember({"yield", "pingpong", "spawn", "chain"}));
  app.add_option("--scheduler", o.scheduler, "Scheduling policy")
      ->check(CLI::IsMember({"ws-cur", "ws-last"}))
      ->capture_default_str();
  app.add_option("--reps", o.reps, "Repetitions per benchmark")->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_flag("--json", json, "One JSON object per benchmark and line");
  CLI11_PARSE(app, argc, argv);

  const Host host = describe_host();
  if (!json) {
    std::printf("kpn-bench: %s, %u CPUs online, %s; %d reps each, median (min, max)\n\n", host.cpu_model.c_str(),
                host.cpus_online, host.kernel.c_str(), o.reps);
  }
  try {
    for (const auto& e : all) {
      if (!only.empty() && only != e.name) continue;
      for (const Result& r : e.run(o)) {
        std::fputs(json ? (format_json(r, host) + "\n").c_str() : (format_text(r) + "\n").c_str(), stdout);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "kpn-bench: %s\n", ex.what());
    return 1;
  }
  return 0;
}
