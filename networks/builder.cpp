#include "networks/builder.hpp"

#include <map>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "networks/feedback.hpp"
#include "networks/message_types.hpp"
#include "networks/topology_error.hpp"

namespace kpn {

Network build_network(const ResolvedNetwork& resolved, ResultSink& results) { return build_network(resolved, results, {}); }

Network build_network(const ResolvedNetwork& resolved, ResultSink& results, const PartialBuild& part) {
  auto here = [&part](std::size_t process) { return !part.include || part.include(process); };
  Network net;
  std::vector<std::shared_ptr<ChannelBase>> channels(resolved.channels.size());
  for (std::size_t i = 0; i < resolved.channels.size(); ++i) {
    const ResolvedChannel& c = resolved.channels[i];
    if (!here(c.from) && !here(c.to)) continue;
    std::shared_ptr<ChannelBase> channel = part.make_channel ? part.make_channel(i) : nullptr;
    if (!channel) {
      const MessageType* type = find_message_type(c.type);
      if (type == nullptr) throw std::logic_error(fmt::format("channel '{}': unregistered message type '{}'", c.name, c.type));
      channel = type->make_channel(c.name, c.capacity);
    }
    channel->set_endpoint_names(resolved.processes[c.from].name, resolved.processes[c.to].name);
    net.add_channel(channel);
    channels[i] = std::move(channel);
  }
  std::vector<OutputRoles> roles = output_roles(resolved);
  for (std::size_t i = 0; i < resolved.processes.size(); ++i) {
    if (!here(i)) continue;
    const ResolvedProcess& p = resolved.processes[i];
    std::map<std::string, std::vector<std::shared_ptr<ChannelBase>>> ports;
    for (const auto& [port, indexes] : p.ports) {
      auto& list = ports[port];
      for (std::size_t i : indexes) list.push_back(channels[i]);
    }
    // resolve() always sets the arguments; a ResolvedProcess made by hand without them has none.
    static const std::map<std::string, Value> kNoArgs;
    KindContext ctx(*p.kind, p.name, p.replica, p.replicas, p.args ? *p.args : kNoArgs, std::move(ports), results);
    ctx.set_output_roles(std::move(roles[i].feedback), roles[i].cycle_has_other_exits);
    UniqueFunction<void()> body;
    try {
      body = p.kind->factory(ctx);
    } catch (const std::exception& e) {
      // A kind checks its own arguments (a negative count): an error of the file, at the declaration.
      throw TopologyError({Diagnostic{p.where, fmt::format("process '{}' (kind '{}'): {}", p.name, p.kind->name, e.what())}});
    }
    net.add_process(p.name, std::move(body), p.options);
  }
  return net;
}

}  // namespace kpn
