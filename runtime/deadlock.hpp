#pragma once
// What to do when every remaining process is blocked (a global deadlock), decided from the blocked
// processes alone. Called only while no process runs, so nothing here races with the network.
//
// Parks' rule: if some writer waits on a full channel, the deadlock is *artificial* (a larger channel
// would let the network go on): grow the smallest such channel and wake its writer. Growth doubles the
// capacity, so a network that needs capacity c stalls O(log c) times rather than c times, and never gets
// more than twice what it needs. A channel that would pass `max_capacity` is not grown.
// Otherwise the deadlock is *true*: every process waits to read from a channel whose writer waits too.

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/channel_view.hpp"
#include "runtime/errors.hpp"

namespace kpn {

class Process;

struct BlockedProcess {
  std::string name;
  ChannelView* channel = nullptr;  // nullptr if blocked on nothing the runtime knows
  WaitDirection direction = WaitDirection::None;
};

struct Growth {
  ChannelView* channel = nullptr;  // nullptr: no channel can be grown
  std::size_t from = 0;
  std::size_t to = 0;
  std::string refused;  // why the smallest full channel was not grown, if it was not
};

// Parks' rule over the blocked processes.
Growth choose_growth(const std::vector<BlockedProcess>& blocked, std::size_t max_capacity);

// The error for a deadlock that cannot be resolved: every blocked process with its channel, direction
// and counterpart, and one cycle of the wait-for graph if there is one.
DeadlockError describe_deadlock(const std::vector<BlockedProcess>& blocked, const std::string& refused);

}  // namespace kpn
