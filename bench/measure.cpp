#include "measure.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <pthread.h>
#include <sched.h>
#include <sys/utsname.h>

#include <fmt/format.h>

#include "runtime/json.hpp"

namespace kpn_bench {

using kpn::json_string;

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) throw std::runtime_error("sched_getaffinity failed");
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

std::vector<int> first_allowed_cpus(std::string_view bench, std::size_t n) {
  std::vector<int> cpus = allowed_cpus();
  if (cpus.size() < n) {
    throw std::runtime_error(fmt::format("{}: {} CPUs wanted, {} allowed (taskset?)", bench, n, cpus.size()));
  }
  cpus.resize(n);
  return cpus;
}

void pin_this_thread(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

Metric& Result::metric(const std::string& name, const std::string& unit) {
  for (auto& m : metrics) {
    if (m.name == name) return m;
  }
  metrics.push_back(Metric{name, unit, {}});
  return metrics.back();
}

Stats stats_of(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

Host describe_host() {
  Host h;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) h.cpu_model = line.substr(colon + 2);
      break;
    }
  }
  h.cpus_online = std::thread::hardware_concurrency();
  struct utsname u {};
  if (::uname(&u) == 0) h.kernel = std::string(u.sysname) + " " + u.release;
  return h;
}

namespace {

std::string number(double v) {
  char buf[64];
  if (v >= 100) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (v >= 10) std::snprintf(buf, sizeof buf, "%.1f", v);
  else if (v >= 1) std::snprintf(buf, sizeof buf, "%.2f", v);
  else std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string json_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::string format_text(const Result& r) {
  std::ostringstream out;
  std::string config;
  for (const auto& [k, v] : r.config) config += (config.empty() ? "" : " ") + k + "=" + v;
  out << r.bench << "  [" << config << "]\n  " << r.what << "\n";
  for (const auto& m : r.metrics) {
    const Stats s = stats_of(m.samples);
    char line[256];
    std::snprintf(line, sizeof line, "  %-22s median %10s %-4s  min %10s  max %10s  (%zu reps)\n", m.name.c_str(),
                  number(s.median).c_str(), m.unit.c_str(), number(s.min).c_str(), number(s.max).c_str(),
                  m.samples.size());
    out << line;
  }
  if (!r.notes.empty()) {
    out << "  last rep:";
    for (const auto& [k, v] : r.notes) out << " " << k << "=" << v;
    out << "\n";
  }
  return out.str();
}

std::string format_json(const Result& r, const Host& host) {
  std::ostringstream out;
  out << "{\"bench\":" << json_string(r.bench) << ",\"what\":" << json_string(r.what);
  for (const auto& [k, v] : r.config) out << "," << json_string(k) << ":" << json_string(v);
  out << ",\"metrics\":{";
  bool first = true;
  for (const auto& m : r.metrics) {
    const Stats s = stats_of(m.samples);
    out << (first ? "" : ",") << json_string(m.name) << ":{\"unit\":" << json_string(m.unit)
        << ",\"median\":" << json_number(s.median) << ",\"min\":" << json_number(s.min)
        << ",\"max\":" << json_number(s.max) << ",\"samples\":[";
    for (std::size_t i = 0; i < m.samples.size(); ++i) out << (i ? "," : "") << json_number(m.samples[i]);
    out << "]}";
    first = false;
  }
  out << "},\"notes\":{";
  first = true;
  for (const auto& [k, v] : r.notes) {
    out << (first ? "" : ",") << json_string(k) << ":" << json_string(v);
    first = false;
  }
  out << "},\"host\":{\"cpu\":" << json_string(host.cpu_model) << ",\"cpus_online\":" << host.cpus_online
      << ",\"kernel\":" << json_string(host.kernel) << "}}";
  return out.str();
}

}  // namespace kpn_bench
