#pragma once
// What to do about processes that wait for each other, decided from a snapshot of the blocked processes.
// These functions only analyse; when a snapshot may be trusted is the deadlock monitor's business
// (deadlock_monitor.hpp).
//
// Parks' rule: if some writer in the deadlock waits on a full channel, the deadlock is *artificial* (a
// larger channel would let the network go on): grow the smallest such channel and wake its writer.
// Growth doubles the capacity, so a network that needs capacity c stalls O(log c) times rather than c
// times, and never holds more than twice what it needs. A channel that would pass `max_capacity` is not
// grown. Otherwise the deadlock is *true*: every process in it waits to read from a channel whose writer
// waits too, and no capacity helps.
//
// A *global* deadlock blocks every remaining process; a *local* one is a cycle of blocked processes, each
// waiting for the next, while other processes still run (Geilen and Basten 2003: Parks' rule alone never
// notices it). Both get the same rules.

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/channel_view.hpp"
#include "runtime/errors.hpp"

namespace kpn {

struct BlockedProcess {
  ProcessId id = 0;
  std::string name;
  ChannelView* channel = nullptr;  // nullptr if blocked on nothing the runtime knows
  WaitDirection direction = WaitDirection::None;
  // Filled by snapshot_channels(): the channel's state and the process at its other end (id 0 and name ""
  // if unknown; a declared name without an id is matched by name when that name is unique).
  ChannelSnapshot state;
  ProcessId counterpart = 0;
  std::string counterpart_name;
  // The process is in the channel's waiter slot in `state` (so the snapshot shows it parked there), and
  // how many times it had parked then.
  bool waiting_in_snapshot = false;
  std::uint64_t parks = 0;
};

// Takes each blocked process's channel snapshot and counterpart. Call once per analysis.
void snapshot_channels(std::vector<BlockedProcess>& blocked);

struct Growth {
  ChannelView* channel = nullptr;  // nullptr: no channel can be grown
  std::size_t from = 0;
  std::size_t to = 0;
  std::string refused;  // why the smallest full channel was not grown, if it was not
};

// Parks' rule over `blocked` (or the subset given by `only`, indexes into it).
Growth choose_growth(const std::vector<BlockedProcess>& blocked, std::size_t max_capacity,
                     const std::vector<std::size_t>* only = nullptr);

// Indexes into `blocked` of one cycle of processes each waiting for the next (by counterpart id), or
// empty if there is none.
std::vector<std::size_t> find_wait_cycle(const std::vector<BlockedProcess>& blocked);

// The error for a deadlock that cannot be resolved: every listed process with its channel, direction and
// counterpart, and the cycle if there is one. `note` is an extra line (why it was not resolved).
DeadlockError describe_deadlock(const std::vector<BlockedProcess>& blocked, const std::string& note,
                                bool local = false);

}  // namespace kpn
