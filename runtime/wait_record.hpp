#pragma once
// The record of what a parked process waits in, for cancellation (cancel.hpp has the protocol): the lock
// and the waiter slot it parked under. Internal to the runtime's parking functions (blocking.cpp,
// timed_wait.cpp, multi_wait.cpp).

#include <cstddef>
#include <string_view>

#include "runtime/process_id.hpp"

namespace kpn {

class BusyWaitMutex;
class Process;
struct RunShared;

// Called by `self`, holding `lock`, after it published itself in `slot` and before it switches out.
// Records the wait, then looks at the cancel request: false if the process was asked to unwind, in which
// case the record is cleared again and the caller must take itself out of `slot` and unwind (a canceller
// that raised the flag before this record was made did not see it, so nobody else will wake it).
bool publish_wait(Process& self, BusyWaitMutex& lock, Process*& slot) noexcept;
// Called by the process once it runs again, before it takes any lock: from here on no canceller looks at
// the wait it left.
void clear_wait(Process& self) noexcept;

// One look of a canceller at `p` (kept alive by the caller): if `p` is parked, takes it out of its slot
// and sets `take` when this caller must ready it. False when the park lock was busy: look again later.
bool take_for_cancel(Process& p, Process*& take) noexcept;

// Raises the cancel request of every unfinished process for which `match(context, p)` holds and wakes each
// one that is parked (see cancel.hpp). Returns how many matched.
std::size_t cancel_where(RunShared& run, const void* context, bool (*match)(const void* context, const Process& p));

}  // namespace kpn

namespace kpn::detail {
// Runtime::cancel's body: `kind` 0 name, 1 id, 2 group (cancel.cpp's Query). Throws std::invalid_argument
// (prefixed with `what`) when no process of the run ever matched.
std::size_t cancel_in_run(RunShared& run, int kind, std::string_view text, ProcessId id, const char* what);
}  // namespace kpn::detail
