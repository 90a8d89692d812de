#pragma once
// The report of a distributed run (run.hpp): each rank's figures as a JSON object, gathered at rank 0,
// and the whole job's object with the placement and the totals (docs/runner.md: the JSON report).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distributed/comm.hpp"
#include "distributed/placement.hpp"
#include "networks/resolved.hpp"
#include "runtime/report.hpp"

namespace kpn::distributed {

struct RankFigures {
  int rank = 0;
  std::string host;
  std::string status;
  std::string error;
  double wall_s = 0;
  std::size_t processes = 0;
  std::size_t cross_channels = 0;
  CommStats comm;
  std::uint64_t credit_stalls = 0;
  std::string cpu_share;  // Session::share_host_cpus, "" when not narrowed
};

// {"rank":N,"host":...,...,"report":{...}}; `report` may be null (the run never started).
std::string rank_json(const RankFigures& f, const RunReport* report);

// The totals over the ranks, in this order (Session::sum adds them element-wise).
std::vector<std::uint64_t> totals_of(const RankFigures& f);

// {"ranks":R,"exit_status":...,"placement":{...},"messages_crossed":...,"per_rank":[...]}
std::string job_json(const ResolvedNetwork& net, const Placement& placement, int ranks, int exit_status, double slowest_s,
                     const std::vector<std::uint64_t>& totals, const std::optional<std::string>& lost,
                     const std::vector<std::string>& per_rank);

// "distributed: 2 ranks, the slowest 0.034 s wall; 100000 messages crossed ranks in 1563 batches ..."
std::string job_summary(int ranks, double slowest_s, const std::vector<std::uint64_t>& totals);

}  // namespace kpn::distributed
