#include "distributed/run_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/json.hpp"

namespace kpn::distributed {

std::string rank_json(const RankFigures& f, const RunReport* report) {
  const CommStats& cs = f.comm;
  return fmt::format(
      "{{\"rank\":{},\"host\":{},\"status\":{},\"error\":{},\"wall_s\":{:.6f},\"workers\":{},\"processes\":{},"
      "\"cross_rank_channels\":{},\"messages_sent\":{},\"batches_sent\":{},\"bytes_sent\":{},\"control_sent\":{},"
      "\"messages_received\":{},\"batches_received\":{},\"bytes_received\":{},\"credit_stalls\":{},\"channels_grown\":{},\"cpu_share\":{},\"report\":{}}}",
      f.rank, json_string(f.host), json_string(f.status), f.error.empty() ? "null" : json_string(f.error), f.wall_s,
      report ? report->workers.size() : 0, f.processes, f.cross_channels, cs.values_sent, cs.batches_sent, cs.bytes_sent,
      cs.control_sent, cs.values_received, cs.batches_received, cs.bytes_received, f.credit_stalls, cs.channels_grown,
      f.cpu_share.empty() ? "null" : json_string(f.cpu_share), report ? report->to_json(false) : std::string("null"));
}

std::vector<std::uint64_t> totals_of(const RankFigures& f) {
  return {f.comm.values_sent, f.comm.batches_sent, f.comm.bytes_sent, f.comm.control_sent, f.credit_stalls, f.comm.channels_grown};
}

std::string job_json(const ResolvedNetwork& net, const Placement& placement, int ranks, int exit_status, double slowest_s,
                     const std::vector<std::uint64_t>& totals, const std::optional<std::string>& lost,
                     const std::vector<std::string>& per_rank) {
  return fmt::format(
      "{{\"ranks\":{},\"exit_status\":{},\"wall_s\":{:.6f},\"placement\":{},\"messages_crossed\":{},\"batches\":{},\"bytes\":{},"
      "\"control_messages\":{},\"credit_stalls\":{},\"channels_grown\":{},\"lost\":{},\"per_rank\":[{}]}}",
      ranks, exit_status, slowest_s, placement_json(net, placement, ranks), totals[0], totals[1], totals[2], totals[3], totals[4],
      totals[5], lost ? json_string(*lost) : std::string("null"), fmt::join(per_rank, ","));
}

std::string job_summary(int ranks, double slowest_s, const std::vector<std::uint64_t>& totals) {
  return fmt::format("distributed: {} ranks, the slowest {:.6f} s wall; {} messages crossed ranks in {} batches ({:.1f} per "
                     "batch), {} bytes with {} control messages; {} credit stalls; {} channels grown across ranks (Parks)\n",
                     ranks, slowest_s, totals[0], totals[1],
                     totals[1] ? static_cast<double>(totals[0]) / static_cast<double>(totals[1]) : 0.0, totals[2], totals[3], totals[4],
                     totals[5]);
}

}  // namespace kpn::distributed
