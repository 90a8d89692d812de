#include "soak_check.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include <kpn.hpp>

#include "oracle.hpp"
#include "soak_run.hpp"

namespace kpn::soak {
namespace {

// Lost and duplicated values of one sink, counted as multisets, then the first place the order differs.
struct Diff {
  std::uint64_t lost = 0;
  std::uint64_t duplicated = 0;
  std::string text;
};

Diff compare(std::size_t sink, const std::vector<u64>& want, const std::vector<u64>& got) {
  Diff d;
  if (want == got) return d;
  std::map<u64, std::int64_t> balance;
  for (u64 v : want) ++balance[v];
  for (u64 v : got) --balance[v];
  for (const auto& [v, n] : balance) {
    if (n > 0) d.lost += static_cast<std::uint64_t>(n);
    if (n < 0) d.duplicated += static_cast<std::uint64_t>(-n);
  }
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  d.text = fmt::format("sink {}: expected {} values, got {} ({} lost, {} duplicated); first difference at position {}", sink,
                       want.size(), got.size(), d.lost, d.duplicated, i);
  if (d.lost == 0 && d.duplicated == 0) d.text += " (same values, another order)";
  return d;
}

}  // namespace

std::vector<std::string> registered_policies() {
  std::vector<std::string> names;
  for (const auto& info : scheduler_list()) names.push_back(info.name);
  return names;
}

void NetworkResult::add(const NetworkResult& other) {
  runs += other.runs;
  messages += other.messages;
  sink_values += other.sink_values;
  deadlocks_resolved += other.deadlocks_resolved;
  broken_writes += other.broken_writes;
  spawned += other.spawned;
  lost += other.lost;
  duplicated += other.duplicated;
  hangs += other.hangs;
  failed_runs += other.failed_runs;
  if (other.slowest_seconds > slowest_seconds) {
    slowest_seconds = other.slowest_seconds;
    slowest = other.slowest;
  }
  for (const auto& [policy, stats] : other.policy_stats) {
    for (const auto& [name, value] : stats) policy_stats[policy][name] += value;
  }
}

NetworkResult check_network(u64 seed, const Matrix& matrix) {
  NetworkResult r;
  r.seed = seed;
  const NetSpec net = generate(seed);
  const auto expected = expected_outputs(net);
  std::size_t initial = net.nodes.size();
  for (const Node& n : net.nodes) initial += n.kind == NodeKind::Loop ? n.ring : 0;
  const auto policies = matrix.policies.empty() ? registered_policies() : matrix.policies;
  for (const auto& policy : policies) {
    for (unsigned cpus : matrix.workers) {
      ++r.runs;
      const RunOutcome run = run_network(net, policy, cpus, matrix.timeout);
      const std::string where = fmt::format("seed {} under {} on {} workers", seed, policy, cpus);
      if (run.status != RunOutcome::Status::Ok) {
        ++r.failed_runs;
        if (run.status == RunOutcome::Status::Hang) ++r.hangs;
        r.report += fmt::format("{}: {}: {}\n", where, run.status == RunOutcome::Status::Hang ? "HANG" : "FAILED", run.error);
        continue;
      }
      if (run.seconds > r.slowest_seconds) {
        r.slowest_seconds = run.seconds;
        r.slowest = where;
      }
      r.messages += run.messages;
      r.deadlocks_resolved += run.deadlocks_resolved;
      r.broken_writes += run.broken_writes;
      for (const auto& [name, value] : run.scheduler_stats) r.policy_stats[policy][name] += value;
      r.spawned += run.processes > initial ? run.processes - initial : 0;
      bool wrong = false;
      for (std::size_t s = 0; s < expected.size(); ++s) {
        r.sink_values += run.sinks[s].size();
        const Diff d = compare(s, expected[s], run.sinks[s]);
        if (d.text.empty()) continue;
        wrong = true;
        r.lost += d.lost;
        r.duplicated += d.duplicated;
        r.report += fmt::format("{}: WRONG OUTPUT: {}\n", where, d.text);
      }
      if (wrong) ++r.failed_runs;
    }
  }
  if (r.failed_runs != 0) r.report += describe(net);
  return r;
}

}  // namespace kpn::soak
