#pragma once
// What a benchmark reports: a few named metrics, each a list of samples (one per repetition), printed as
// median, minimum and maximum, together with the configuration it was measured under.

#include <chrono>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kpn_bench {

struct Metric {
  std::string name;   // e.g. "ns_per_yield"
  std::string unit;   // e.g. "ns"
  std::vector<double> samples;
};

struct Result {
  std::string bench;                                        // e.g. "pingpong"
  std::string what;                                         // one line: what one sample measures
  std::vector<std::pair<std::string, std::string>> config;  // cpus, scheduler, n, ...
  std::deque<Metric> metrics;  // a deque: references from metric() stay valid as metrics are added
  // Observations from the last repetition that help to read the numbers (steals, switches per op).
  std::vector<std::pair<std::string, std::string>> notes;

  // The metric of that name, added if missing.
  Metric& metric(const std::string& name, const std::string& unit);
};

struct Stats {
  double median = 0;
  double min = 0;
  double max = 0;
};
Stats stats_of(std::vector<double> samples);

// The machine, for the header and the JSON lines.
struct Host {
  std::string cpu_model;
  unsigned cpus_online = 0;
  std::string kernel;
};
Host describe_host();

// The CPUs this program may run on (taskset, cgroups), lowest first; and pinning the calling thread to one.
std::vector<int> allowed_cpus();
// The first `n` of them; throws, naming `bench`, when fewer are allowed.
std::vector<int> first_allowed_cpus(std::string_view bench, std::size_t n);
void pin_this_thread(int cpu);

std::string format_text(const Result& r);
std::string format_json(const Result& r, const Host& host);

// Seconds since an arbitrary origin (steady clock); for start and end stamps only.
inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace kpn_bench
