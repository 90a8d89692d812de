#include "distributed/rank_network.hpp"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "distributed/remote_types.hpp"
#include "networks/builder.hpp"
#include "networks/message_types.hpp"

namespace kpn::distributed {

RankNetwork build_rank_network(const ResolvedNetwork& net, const Placement& placement, int rank, ResultSink& results, Comm& comm) {
  // Every crossing channel is checked, not only this rank's, so that every rank refuses the same file.
  for (const auto& c : net.channels) {
    if (placement.rank[c.from] != placement.rank[c.to] && find_remote_type(c.type) == nullptr) {
      throw std::invalid_argument(fmt::format(
          "channel '{}' crosses ranks ({} on rank {}, {} on rank {}) but its message type '{}' has no wire codec "
          "(docs/distributed.md: Wire<T> and KPN_REGISTER_REMOTE_TYPE); place both ends on one rank with `rank:`",
          c.name, net.processes[c.from].name, placement.rank[c.from], net.processes[c.to].name, placement.rank[c.to], c.type));
    }
  }
  RankNetwork out;
  std::map<std::size_t, RemoteEnd> ends;  // channel index -> this rank's end of it
  for (std::size_t i = 0; i < net.channels.size(); ++i) {
    const ResolvedChannel& c = net.channels[i];
    const int writer = placement.rank[c.from];
    const int reader = placement.rank[c.to];
    if (writer == reader || (writer != rank && reader != rank)) continue;
    const RemoteType& type = *find_remote_type(c.type);
    const auto id = static_cast<std::uint32_t>(i);
    if (writer == rank) {
      RemoteEnd e = type.writer_end(c.name, c.capacity, comm.add_out_link(id, reader), comm);
      out.credit_stalls.push_back(e.credit_stalls);
      ends.emplace(i, std::move(e));
    } else {
      ends.emplace(i, type.reader_end(c.name, c.capacity, comm.add_in_link(id, writer), comm));
    }
    ++out.cross_channels;
  }
  std::map<std::size_t, std::shared_ptr<ChannelBase>> made;  // every channel with an end here
  PartialBuild part;
  part.include = [&](std::size_t p) { return placement.rank[p] == rank; };
  part.make_channel = [&](std::size_t channel) -> std::shared_ptr<ChannelBase> {
    auto it = ends.find(channel);
    std::shared_ptr<ChannelBase> c;
    if (it != ends.end()) {
      c = it->second.channel;
    } else {
      const MessageType* type = find_message_type(net.channels[channel].type);
      if (type == nullptr) return nullptr;  // build_network reports it
      c = type->make_channel(net.channels[channel].name, net.channels[channel].capacity);
    }
    made[channel] = c;
    return c;
  };
  Network built = build_network(net, results, part);
  // The same processes and channels again, each body marking its end for the deadlock check.
  out.watch = std::make_unique<RankWatch>();
  for (const auto& c : built.channels()) out.network.add_channel(c);
  for (const auto& [i, c] : made) out.watch->add_channel(c);
  std::map<std::string, std::size_t> index;
  for (std::size_t p = 0; p < net.processes.size(); ++p) {
    if (placement.rank[p] == rank) index[net.processes[p].name] = p;
  }
  for (ProcessSpec& spec : built.take_processes()) {
    const ResolvedProcess& rp = net.processes[index.at(spec.name)];
    RankWatch::Process wp;
    wp.name = spec.name;
    wp.ended = std::make_shared<std::atomic<bool>>(false);
    for (const auto& [port, channels] : rp.ports) {
      for (std::size_t c : channels) wp.ports.emplace_back(made.at(c), net.channels[c].from == index.at(spec.name));
    }
    out.network.add_process(std::move(spec.name), watched_body(std::move(spec.body), wp.ended), spec.options);
    out.watch->add_process(std::move(wp));
    ++out.processes;
  }
  for (auto& [i, e] : ends) {
    const ResolvedChannel& c = net.channels[i];
    const bool writer_here = placement.rank[c.from] == rank;
    // The remote process is named with its rank in this rank's report and deadlock messages.
    e.channel->set_endpoint_names(writer_here ? net.processes[c.from].name
                                              : fmt::format("{} (rank {})", net.processes[c.from].name, placement.rank[c.from]),
                                  writer_here ? fmt::format("{} (rank {})", net.processes[c.to].name, placement.rank[c.to])
                                              : net.processes[c.to].name);
  }
  if (!ends.empty()) {
    out.network.add_process(kLinkPollerName, [&comm] { run_link_poller(comm); }, link_poller_options());
    out.pollers = 1;
  }
  out.watch->add_links(comm.out_links());
  return out;
}

}  // namespace kpn::distributed
