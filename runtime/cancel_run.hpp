#pragma once
// Cancelling processes of a run, behind kpn::cancel and Runtime::cancel (cancel.hpp); wait_record.hpp has
// the protocol that wakes a parked one.

#include <cstddef>
#include <string_view>

#include "runtime/process_id.hpp"

namespace kpn {

class Process;
struct RunShared;

// Raises the cancel request of every unfinished process for which `match(context, p)` holds and wakes each
// one that is parked. Returns how many matched.
std::size_t cancel_where(RunShared& run, const void* context, bool (*match)(const void* context, const Process& p));

}  // namespace kpn

namespace kpn::detail {
// Runtime::cancel's body: `kind` 0 name, 1 id, 2 group (cancel.cpp's Query). Throws std::invalid_argument
// (prefixed with `what`) when no process of the run ever matched.
std::size_t cancel_in_run(RunShared& run, int kind, std::string_view text, ProcessId id, const char* what);
}  // namespace kpn::detail
