#include "runtime/deadlock.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace kpn {

void snapshot_channels(std::vector<BlockedProcess>& blocked) {
  for (auto& b : blocked) {
    if (b.channel == nullptr) continue;
    b.state = b.channel->snapshot();
    const bool reading = b.direction == WaitDirection::Read;
    b.counterpart = reading ? b.state.writer : b.state.reader;
    b.counterpart_name = reading ? b.state.writer_name : b.state.reader_name;
    const ProcessId waiting = reading ? b.state.reader_waiting : b.state.writer_waiting;
    b.waiting_in_snapshot = waiting != 0 && waiting == b.id;
    b.parks = reading ? b.state.reader_waiting_parks : b.state.writer_waiting_parks;
  }
}

Growth choose_growth(const std::vector<BlockedProcess>& blocked, std::size_t max_capacity,
                     const std::vector<std::size_t>* only) {
  Growth g;
  std::size_t smallest = 0;
  auto consider = [&](const BlockedProcess& b) {
    if (b.direction != WaitDirection::Write || b.channel == nullptr) return;
    if (b.state.size < b.state.capacity) return;  // not full: this writer waits for something else
    if (g.channel == nullptr || b.state.capacity < smallest) {
      g.channel = b.channel;
      smallest = b.state.capacity;
    }
  };
  if (only != nullptr) {
    for (std::size_t i : *only) consider(blocked[i]);
  } else {
    for (const auto& b : blocked) consider(b);
  }
  if (g.channel == nullptr) return g;
  g.from = smallest;
  g.to = std::min(smallest * 2, max_capacity);
  if (g.to <= g.from) {
    g.refused = fmt::format("channel '{}' is full at capacity {} and may not grow past the maximum capacity {}",
                            g.channel->name(), g.from, max_capacity);
    g.channel = nullptr;
  }
  return g;
}

std::vector<std::size_t> find_wait_cycle(const std::vector<BlockedProcess>& blocked) {
  // Each process waits for at most one other: follow the edges from every start until a process repeats.
  std::map<ProcessId, std::size_t> by_id;
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < blocked.size(); ++i) {
    by_id.emplace(blocked[i].id, i);
    // An ambiguous name (spawned processes may share one) cannot be followed.
    if (!by_name.emplace(blocked[i].name, i).second) by_name[blocked[i].name] = blocked.size();
  }
  auto next = [&](std::size_t i) -> std::size_t {
    if (blocked[i].counterpart != 0) {
      auto it = by_id.find(blocked[i].counterpart);
      return it == by_id.end() ? blocked.size() : it->second;
    }
    auto it = by_name.find(blocked[i].counterpart_name);
    return it == by_name.end() ? blocked.size() : it->second;
  };
  std::vector<int> state(blocked.size(), 0);  // 0 unvisited, 1 on the current path, 2 done
  for (std::size_t start = 0; start < blocked.size(); ++start) {
    std::vector<std::size_t> path;
    std::size_t at = start;
    while (at < blocked.size() && state[at] == 0) {
      state[at] = 1;
      path.push_back(at);
      at = next(at);
    }
    if (at < blocked.size() && state[at] == 1) return {std::find(path.begin(), path.end(), at), path.end()};
    for (std::size_t i : path) state[i] = 2;
  }
  return {};
}

DeadlockError describe_deadlock(const std::vector<BlockedProcess>& blocked, const std::string& note, bool local) {
  std::vector<DeadlockError::Blocked> list;
  for (const auto& b : blocked) list.push_back({b.name, b.state.name, b.direction, b.counterpart_name});
  std::vector<std::string> cycle;
  for (std::size_t i : find_wait_cycle(blocked)) cycle.push_back(blocked[i].name);
  return DeadlockError(std::move(list), std::move(cycle), note, local);
}

}  // namespace kpn
