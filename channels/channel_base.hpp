#pragma once
// What every channel kind is, whatever it carries: a ChannelView for the runtime (name, snapshot, growth)
// plus the two ends' untyped operations that endpoints and network builders use. A kind (the bounded FIFO
// of channel.hpp today; an unbounded, broadcast or remote channel tomorrow) implements this and
// TypedChannel<T> (typed_channel.hpp); endpoints, kinds of process and message types see only these two,
// so a new channel kind edits none of them.

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/channel_view.hpp"
#include "runtime/export.hpp"
#include "runtime/process_id.hpp"

namespace kpn {

class BusyWaitMutex;
class Process;

// Where a process waits on one end of a channel: the lock and the waiter slot it guards (select.hpp).
struct SelectPoint {
  BusyWaitMutex* lock = nullptr;  // nullptr: this channel kind cannot be selected on
  Process** slot = nullptr;
};

class KPN_EXPORT ChannelBase : public ChannelView {
 public:
  virtual std::size_t capacity() const noexcept = 0;
  // Messages written so far.
  virtual std::uint64_t messages() const noexcept = 0;

  // The writer side ends the stream. Idempotent; never blocks (it may spin briefly on a lock).
  virtual void close() noexcept = 0;
  // The reader endpoint went away: a blocked or later write throws BrokenChannel.
  virtual void detach_reader() noexcept = 0;

  // The processes at each end, for deadlock detection, graphs and reports: declared by whoever builds the
  // network (names only, before processes have ids), then recorded by an endpoint at its first use (id and
  // name), and cleared (id 0, name "") when an endpoint that was used is handed to another process.
  virtual void set_endpoint_names(std::string writer, std::string reader) = 0;
  virtual void record_endpoint_user(bool writer_side, ProcessId id, const std::string& name) noexcept = 0;

  // For kpn::nondeterministic::select (select.hpp). A kind that does not override them cannot be selected
  // on (select throws std::invalid_argument). select_ready is called with select_point's lock held: true
  // when the end's blocking operation would return now. The read end is ready when a message waits or the
  // stream has ended (read() then returns std::nullopt); the write end when there is room, or when a write
  // would throw at once (closed, or the reader gone).
  virtual SelectPoint select_point(bool writer_side) noexcept {
    (void)writer_side;
    return {};
  }
  virtual bool select_ready(bool writer_side) const noexcept {
    (void)writer_side;
    return false;
  }
};

}  // namespace kpn
