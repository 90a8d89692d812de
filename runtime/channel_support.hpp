#pragma once
// What a channel kind needs from the runtime besides parking (blocking.hpp): who is calling, whether the
// run is stopping, a place in the run's report, and the identity of a parked waiter for snapshots. Out of
// line and light, so a channel header drags in no fiber, worker or run.

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/channel_view.hpp"
#include "runtime/current.hpp"
#include "runtime/export.hpp"
#include "runtime/process_id.hpp"

namespace kpn {

class Process;

// current_process_id(), current_process_id_unless_stopping() and current_run_stopping() are in current.hpp.
// The calling process's name; "" outside a process.
KPN_EXPORT const std::string& current_process_name() noexcept;
// True when called from a process that must unwind: its run is stopping, or it was cancelled (cancel.hpp).
KPN_EXPORT bool current_must_unwind() noexcept;
// Unwinds the calling process (throws detail::Cancelled) if it must unwind, unless an exception is already
// unwinding it (a destructor may still use a channel then). For a channel operation about to answer that
// the stream has ended or the other end is gone: a process cancelled before that answer unwinds, as it
// would have had it parked first (park checks on waking), so which of the two it does never depends on
// whether the operation had to wait. Cold: only those answers call it.
KPN_EXPORT void unwind_if_requested();
// Lists `channel` in the report of the run the calling process belongs to (no-op outside a process).
KPN_EXPORT void register_with_current_run(std::shared_ptr<ChannelView> channel);

// A parked waiter's id and park count (Process::park_count), for ChannelSnapshot. Call under the lock that
// guards the slot it was taken from.
struct WaiterInfo {
  ProcessId id = 0;
  std::uint64_t parks = 0;
  bool timed = false;  // a wait with a deadline (Process::waits_with_timer)
};
KPN_EXPORT WaiterInfo waiter_info(const Process* waiter) noexcept;

}  // namespace kpn
