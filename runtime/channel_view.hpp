#pragma once
// What the runtime and tools may know of a channel without knowing its element type: the runtime lists
// channels in reports and names them in deadlock errors. channels/ implements it; the runtime defines it
// so that it never depends on the channel layer.

#include <cstddef>
#include <cstdint>
#include <string>

namespace kpn {

struct ChannelSnapshot {
  std::string name;
  std::size_t capacity = 0;
  std::size_t size = 0;         // messages waiting in the channel
  std::uint64_t messages = 0;   // messages written so far
  std::uint64_t cross_worker_messages = 0;  // messages read on another worker than the one that wrote them
  bool closed = false;
  std::string reader_waiting;   // name of the process blocked reading, empty if none
  std::string writer_waiting;   // name of the process blocked writing, empty if none
  std::string writer;           // the process that writes it, if known (declared or seen), else empty
  std::string reader;           // the process that reads it, if known, else empty
};

class ChannelView {
 public:
  virtual ~ChannelView() = default;
  virtual const std::string& name() const noexcept = 0;
  // A consistent copy of the channel's state, taken under its lock.
  virtual ChannelSnapshot snapshot() const = 0;
  // Resolves an artificial deadlock (Parks' rule): raises the capacity to `new_capacity` and wakes the
  // writer blocked on it. Called by the runtime only while no process runs.
  virtual void grow(std::size_t new_capacity) = 0;
};

}  // namespace kpn
