#pragma once
// kpn-run's command line: what it sets, and the CLI11 definitions that fill it.

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/config.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace kpn_run {

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

// Defines every option of kpn-run on `app`, filling `opt`; returns the positional FILE (required unless
// --kinds, --measure-t0 or --version is given: see main).
CLI::Option* define_options(CLI::App& app, Options& opt);

}  // namespace kpn_run
