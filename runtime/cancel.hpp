#pragma once
// Cancelling processes: one by name or id, or a group (ProcessOptions::group), from inside the network
// (kpn::cancel, kpn::cancel_group) or from the host (Runtime::cancel, Runtime::cancel_group, callable from
// any thread while run() runs). Runtime::interrupt() stays the way to stop the whole run.
//
//   kpn::cancel("parser");              // in a process: the process named "parser" unwinds
//   runtime.cancel_group("ingest");     // on another thread: every process of the group "ingest" unwinds
//
// What a cancelled process does: at its next blocking point (a channel operation, kpn::yield, a sleep, a
// select; at once if it is parked in one) it throws kpn::detail::Cancelled, which unwinds its stack, so
// destructors run (RAII). A process inside kpn::blocking is unwound when the call returns; an interruptible
// call (blocking_call.hpp) is first told to stop, as when the network stops: its token's stop is requested
// (its stop callbacks run on the cancelling thread) and its pool thread is sent the interrupt signal until
// it returns. A call still queued for a pool thread starts with its stop requested. A process that has not
// run yet never starts its body. Its channel
// endpoints are then destroyed, as when a process ends: readers of its outputs see the end of the stream
// once they have read what was written, writers into its inputs get BrokenChannel. The rest of the network
// goes on. Messages the process had read are its own (nothing is put back); a message waiting in a channel
// it had not read yet stays there. The run's report counts cancelled processes
// (RunReport::processes_cancelled, ProcessReport::cancelled).
//
// Names: cancel(name) matches every unfinished process with exactly that name (spawned processes may share
// one). Cancelling a name, id or group that no process of the run ever had is an error
// (std::invalid_argument); one whose processes have all finished is not (it returns 0). A process that
// cancels itself (or its own group) unwinds when the call returns.
//
// Cancellation makes a network depend on timing (what the cancelled process had done by then), so a
// network that cancels is no longer a Kahn network (docs/api.md).

#include <cstddef>
#include <string_view>

#include "runtime/export.hpp"
#include "runtime/process_id.hpp"

namespace kpn {

// From a process of the running network (std::logic_error elsewhere). Each returns how many unfinished
// processes it asked to unwind.
KPN_EXPORT std::size_t cancel(std::string_view process_name);
KPN_EXPORT std::size_t cancel(ProcessId id);
KPN_EXPORT std::size_t cancel_group(std::string_view group);

}  // namespace kpn
