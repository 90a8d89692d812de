#include "runtime/deadlock.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace kpn {

Growth choose_growth(const std::vector<BlockedProcess>& blocked, std::size_t max_capacity) {
  Growth g;
  std::size_t smallest = 0;
  for (const auto& b : blocked) {
    if (b.direction != WaitDirection::Write || b.channel == nullptr) continue;
    const ChannelSnapshot s = b.channel->snapshot();
    if (s.size < s.capacity) continue;  // not full: this writer waits for something else
    if (g.channel == nullptr || s.capacity < smallest) {
      g.channel = b.channel;
      smallest = s.capacity;
    }
  }
  if (g.channel == nullptr) return g;
  g.from = smallest;
  g.to = std::min(smallest * 2, max_capacity);
  if (g.to <= g.from) {
    g.refused = fmt::format("channel '{}' is full at capacity {} and may not grow past --max-capacity {}",
                            g.channel->name(), g.from, max_capacity);
    g.channel = nullptr;
  }
  return g;
}

DeadlockError describe_deadlock(const std::vector<BlockedProcess>& blocked, const std::string& refused) {
  std::vector<DeadlockError::Blocked> list;
  std::map<std::string, std::string> waits_for;  // process -> process it waits for
  for (const auto& b : blocked) {
    DeadlockError::Blocked e;
    e.process = b.name;
    e.direction = b.direction;
    if (b.channel != nullptr) {
      const ChannelSnapshot s = b.channel->snapshot();
      e.channel = s.name;
      e.counterpart = b.direction == WaitDirection::Read ? s.writer : s.reader;
      if (!e.counterpart.empty()) waits_for[e.process] = e.counterpart;
    }
    list.push_back(std::move(e));
  }
  // Follow the wait-for edges from each process until one repeats: that closes a cycle.
  std::vector<std::string> cycle;
  for (const auto& start : list) {
    std::vector<std::string> path;
    std::set<std::string> seen;
    std::string at = start.process;
    while (seen.insert(at).second) {
      path.push_back(at);
      auto it = waits_for.find(at);
      if (it == waits_for.end()) break;
      at = it->second;
    }
    auto first = std::find(path.begin(), path.end(), at);
    if (first != path.end() && waits_for.count(path.back()) != 0) {
      cycle.assign(first, path.end());
      break;
    }
  }
  return DeadlockError(std::move(list), std::move(cycle), refused);
}

}  // namespace kpn
