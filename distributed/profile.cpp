#include "distributed/profile.hpp"

#include <string_view>
#include <unordered_map>

namespace kpn::distributed {

Profile profile_of(const ResolvedNetwork& net, const RunReport& report) {
  Profile p;
  p.cpu_s.assign(net.processes.size(), 0.0);
  p.messages.assign(net.channels.size(), 0);
  std::unordered_map<std::string_view, std::size_t> process_index;
  for (std::size_t i = 0; i < net.processes.size(); ++i) process_index.emplace(net.processes[i].name, i);
  std::unordered_map<std::string_view, std::size_t> channel_index;
  for (std::size_t i = 0; i < net.channels.size(); ++i) channel_index.emplace(net.channels[i].name, i);
  for (const ProcessReport& r : report.process_details) {
    if (auto it = process_index.find(r.name); it != process_index.end()) p.cpu_s[it->second] += r.cpu_s;
  }
  for (const ChannelReport& c : report.channels) {
    if (auto it = channel_index.find(c.name); it != channel_index.end()) p.messages[it->second] += c.messages;
  }
  p.wall_s = report.wall_s;
  return p;
}

}  // namespace kpn::distributed
