#pragma once
// One rank's part of a distributed network: its processes, the channels between them as usual, for each
// channel with one end here and the other on another rank that end (remote_channels.hpp), and, if there is
// any, the rank's link poller, a process named kLinkPollerName that keeps the rank active while a stream
// across ranks is open and helps its communication thread (remote_channels.hpp).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "channels/network.hpp"
#include "distributed/comm.hpp"
#include "distributed/placement.hpp"
#include "distributed/watch.hpp"
#include "networks/kinds.hpp"
#include "networks/resolved.hpp"

namespace kpn::distributed {

inline constexpr const char* kLinkPollerName = "kpn:link-poller";

struct RankNetwork {
  Network network;
  std::size_t processes = 0;      // the network's own, on this rank
  std::size_t pollers = 0;        // 1 with any cross-rank channel, else 0
  std::size_t cross_channels = 0; // channels with one end here and the other elsewhere
  std::vector<std::function<std::uint64_t()>> credit_stalls;  // one per writer's end here
  std::unique_ptr<RankWatch> watch;  // for the deadlock check across ranks (comm.set_watch)

  std::uint64_t total_credit_stalls() const {
    std::uint64_t n = 0;
    for (const auto& f : credit_stalls) n += f();
    return n;
  }
};

// Registers the links with `comm` (before comm.start()). Throws std::invalid_argument if a channel that
// crosses ranks carries a type without a Wire codec (remote_types.hpp); the same on every rank.
RankNetwork build_rank_network(const ResolvedNetwork& net, const Placement& placement, int rank, ResultSink& results, Comm& comm);

}  // namespace kpn::distributed
