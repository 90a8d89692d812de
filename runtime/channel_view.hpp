#pragma once
// What the runtime and tools may know of a channel without knowing its element type or its kind: the
// runtime lists channels in reports, follows them in deadlock detection and weighs them in process graphs.
// channels/ implements it; the runtime defines it so that it never depends on the channel layer.
//
// Processes are named by id (ProcessId, never reused within a run) wherever identity matters; names are
// kept for messages only, since spawned processes may share one.

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/export.hpp"
#include "runtime/process_id.hpp"

namespace kpn {

struct KPN_EXPORT ChannelSnapshot {
  std::string name;
  std::size_t capacity = 0;
  std::size_t size = 0;         // messages waiting in the channel
  std::uint64_t messages = 0;   // messages written so far
  std::uint64_t cross_worker_messages = 0;  // messages read on another worker than the one that wrote them
  ProcessId reader_waiting = 0;  // the process blocked reading, 0 if none
  ProcessId writer_waiting = 0;  // the process blocked writing, 0 if none
  // How many times each waiter had parked (Process::park_count), read under the channel's lock: equal
  // counts in two snapshots mean the waiter stayed in its slot in between (deadlock_monitor.hpp).
  std::uint64_t reader_waiting_parks = 0;
  std::uint64_t writer_waiting_parks = 0;
  // Whether each waiter waits with a deadline (read_for, write_for, a select with a timeout): its timer
  // will ready it, so it waits for no one forever (read under the lock too).
  bool reader_waiting_timed = false;
  bool writer_waiting_timed = false;
  // The processes at each end: the id once an endpoint has been used (0 before), and the name, declared
  // by whoever built the network or recorded at first use ("" if unknown).
  ProcessId writer = 0;
  ProcessId reader = 0;
  std::string writer_name;
  std::string reader_name;
};

class KPN_EXPORT ChannelView {
 public:
  virtual ~ChannelView() = default;
  virtual const std::string& name() const noexcept = 0;
  // A consistent copy of the channel's state, taken under its lock.
  virtual ChannelSnapshot snapshot() const = 0;
  // Resolves an artificial deadlock (Parks' rule): raises the capacity to `new_capacity` and wakes the
  // writer blocked on it. Called by the deadlock monitor only, once it knows the writer is part of a
  // deadlock (so nothing else can change the channel meanwhile).
  virtual void grow(std::size_t new_capacity) = 0;
  // Called on the process that holds reads of this channel (held_reads.hpp), with no channel lock held,
  // after it stopped holding them: frees the slots of the messages it consumed, wakes a writer waiting for
  // them, and ends the reservation. Kinds that never reserve reads keep the default.
  virtual void give_back_reads() noexcept {}
};

}  // namespace kpn
