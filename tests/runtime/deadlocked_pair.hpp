#pragma once
// A true deadlock for the runtime tests: two processes that wait for each other forever, and the sorted
// cycle a DeadlockError names.

#include <algorithm>
#include <string>
#include <vector>

#include <kpn.hpp>

namespace kpn::test {

// Adds processes `first` and `second` and the channels "first->second" and "second->first" (capacity 1)
// between them. Each uses both of its ends once, so the runtime knows who holds each end (an endpoint binds
// to a process at its first use), then waits for a second message that the other never sends.
inline void add_deadlocked_pair(Network& net, const std::string& first, const std::string& second) {
  auto [there_tx, there_rx] = net.channel<int>(1, first + "->" + second);
  auto [back_tx, back_rx] = net.channel<int>(1, second + "->" + first);
  net.process(first, [out = std::move(there_tx), in = std::move(back_rx)]() mutable {
    out.write(1);
    in.read();
    in.read();
  });
  net.process(second, [in = std::move(there_rx), out = std::move(back_tx)]() mutable {
    in.read();
    out.write(1);
    in.read();
  });
}

// The processes of the deadlock's cycle, sorted by name.
inline std::vector<std::string> sorted_cycle(const DeadlockError& e) {
  std::vector<std::string> cycle = e.cycle();
  std::sort(cycle.begin(), cycle.end());
  return cycle;
}

}  // namespace kpn::test
