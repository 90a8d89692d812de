#include "runtime/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/json.hpp"

namespace kpn {

void RunReport::compute_totals() {
  context_switches = steal_attempts = steals = 0;
  for (const auto& w : workers) {
    context_switches += w.context_switches;
    steal_attempts += w.steal_attempts;
    steals += w.steals;
  }
  messages = cross_worker_messages = 0;
  for (const auto& c : channels) {
    messages += c.messages;
    cross_worker_messages += c.cross_worker_messages;
  }
  cross_worker_share = messages > 0 ? static_cast<double>(cross_worker_messages) / static_cast<double>(messages) : 0;
  steal_attempts_per_s = wall_s > 0 ? static_cast<double>(steal_attempts) / wall_s : 0;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else out += c;
    }
  }
  return out + "\"";
}

std::string RunReport::to_json(bool details, const std::vector<std::pair<std::string, std::string>>& prefix) const {
  std::string s = "{";
  for (const auto& [key, value] : prefix) s += fmt::format("{}:{},", json_string(key), value);
  s += fmt::format("\"scheduler\":{},\"cpus\":{},\"wall_s\":{:.9g},\"processes\":{},\"messages\":{},", json_string(scheduler),
                   cpus, wall_s, processes, messages);
  s += fmt::format("\"context_switches\":{},\"steal_attempts\":{},\"steals\":{},\"steal_attempts_per_s\":{:.6g},",
                   context_switches, steal_attempts, steals, steal_attempts_per_s);
  s += fmt::format("\"deadlocks_resolved\":{},\"cross_worker_messages\":{},\"cross_worker_share\":{:.6g},",
                   deadlocks_resolved, cross_worker_messages, cross_worker_share);
  s += fmt::format("\"blocking_calls\":{},\"blocking_threads\":{},\"stacks_mapped\":{},\"processes_cancelled\":{},",
                   blocking_calls, blocking_threads, stacks_mapped, processes_cancelled);
  if (!trace_file.empty()) {
    s += fmt::format("\"trace\":{{\"file\":{},\"events\":{},\"dropped_events\":{},\"error\":{}}},", json_string(trace_file),
                     trace_events, trace_dropped, trace_error.empty() ? "null" : json_string(trace_error));
  }
  s += "\"scheduler_stats\":{";
  for (std::size_t i = 0; i < scheduler_stats.size(); ++i) {
    s += fmt::format("{}{}:{:.9g}", i ? "," : "", json_string(scheduler_stats[i].first), scheduler_stats[i].second);
  }
  s += "},";
  s += fmt::format("\"topology\":{{\"pin\":{},\"packages\":{},\"numa_nodes\":{},\"cores\":{},\"pus\":{},\"worker_pus\":[{}]}},",
                   json_string(topology.pin), topology.packages, topology.numa_nodes, topology.cores, topology.pus,
                   fmt::join(topology.worker_pus, ","));
  s += "\"workers\":[";
  for (std::size_t i = 0; i < workers.size(); ++i) {
    const auto& w = workers[i];
    s += fmt::format(
        "{}{{\"index\":{},\"pu\":{},\"context_switches\":{},\"steal_attempts\":{},\"steals\":{},\"busy_s\":{:.9g},"
        "\"idle_s\":{:.9g}}}",
        i ? "," : "", w.index, w.pu, w.context_switches, w.steal_attempts, w.steals, w.busy_s, w.idle_s);
  }
  s += "]";
  if (details) {
    s += ",\"process_details\":[";
    for (std::size_t i = 0; i < process_details.size(); ++i) {
      const auto& p = process_details[i];
      s += fmt::format(
          "{}{{\"id\":{},\"name\":{},\"cpu_s\":{:.9g},\"switches\":{},\"last_worker\":{},\"home_worker\":{},\"cancelled\":{}}}",
          i ? "," : "", p.id, json_string(p.name), p.cpu_s, p.switches, p.last_worker, p.home_worker, p.cancelled);
    }
    s += "],\"channels\":[";
    for (std::size_t i = 0; i < channels.size(); ++i) {
      const auto& c = channels[i];
      s += fmt::format("{}{{\"name\":{},\"capacity\":{},\"messages\":{},\"cross_worker_messages\":{}}}", i ? "," : "",
                       json_string(c.name), c.capacity, c.messages, c.cross_worker_messages);
    }
    s += "]";
  }
  return s + "}";
}

std::string RunReport::summary() const {
  std::string s = fmt::format("{} on {} cpus: {:.6f} s wall, {} processes, {} messages, {} context switches\n",
                              scheduler, cpus, wall_s, processes, messages, context_switches);
  s += fmt::format("steal attempts: {} ({:.3g}/s), steals: {}\n", steal_attempts, steal_attempts_per_s, steals);
  s += fmt::format("topology: {} packages, {} NUMA nodes, {} cores, {} PUs; pin {}, worker PUs [{}]\n", topology.packages,
                   topology.numa_nodes, topology.cores, topology.pus, topology.pin, fmt::join(topology.worker_pus, " "));
  if (deadlocks_resolved != 0) s += fmt::format("artificial deadlocks resolved: {}\n", deadlocks_resolved);
  if (processes_cancelled != 0) s += fmt::format("cancelled processes: {}\n", processes_cancelled);
  if (blocking_calls != 0) {
    s += fmt::format("blocking calls: {} on {} pool thread{}\n", blocking_calls, blocking_threads, blocking_threads == 1 ? "" : "s");
  }
  if (!trace_file.empty()) {
    if (!trace_error.empty()) {
      s += fmt::format("trace: {}\n", trace_error);
    } else {
      s += fmt::format("trace: {} ({} events{})\n", trace_file, trace_events,
                       trace_dropped > 0 ? fmt::format(", {} more dropped past the trace limit", trace_dropped) : "");
    }
  }
  if (cpus > 1) {
    s += fmt::format("messages across workers: {} ({:.1f}%)\n", cross_worker_messages, 100.0 * cross_worker_share);
  }
  if (!scheduler_stats.empty()) {
    s += scheduler + ":";
    for (const auto& [key, value] : scheduler_stats) s += fmt::format(" {}={:.12g}", key, value);
    s += "\n";
  }
  for (const auto& w : workers) {
    s += fmt::format("  worker {} (pu {}): busy {:.1f}%, {} switches, {} steal attempts\n", w.index, w.pu,
                     wall_s > 0 ? 100.0 * w.busy_s / wall_s : 0.0, w.context_switches, w.steal_attempts);
  }
  return s;
}

}  // namespace kpn
