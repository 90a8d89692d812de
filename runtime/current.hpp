#pragma once
// Which worker and process the calling kernel thread is running. The accessors are out of line on purpose:
// a process may migrate between kernel threads at any switch, and a compiler that inlined a thread_local
// access could reuse the address it computed on the previous thread. They are hidden inside libkpn (no PLT
// call from the library's own code).

#include "runtime/export.hpp"
#include "runtime/process_id.hpp"

namespace kpn {

class Process;
class Worker;
struct RunShared;

// The worker this kernel thread runs, or nullptr outside the runtime.
[[gnu::noinline]] KPN_EXPORT Worker* current_worker() noexcept;
// The process running on this kernel thread, or nullptr outside a process.
[[gnu::noinline]] KPN_EXPORT Process* current_process() noexcept;
// The index of the worker this kernel thread runs, or -1 outside the run's workers (teardown included).
[[gnu::noinline]] KPN_EXPORT int current_worker_index() noexcept;
// The run whose worker this kernel thread is, or nullptr.
[[gnu::noinline]] RunShared* current_run() noexcept;
// For a wake-up in `run` (blocking.cpp's unblock), in one call: this thread's worker if it is one of `run`'s
// (else nullptr), and in `running` the process it runs (nullptr between processes, or when not `run`'s).
[[gnu::noinline]] Worker* current_worker_of(const RunShared& run, Process*& running) noexcept;
// The running process's id, 0 outside a process; and the same but 0 also while the process must unwind (its
// run is stopping, or it was cancelled: cancel.hpp): an endpoint's fast check fails then, and its slow path
// unwinds the process (so a process that never blocks still stops at its next channel operation). One call.
[[gnu::noinline]] KPN_EXPORT ProcessId current_process_id() noexcept;
[[gnu::noinline]] KPN_EXPORT ProcessId current_process_id_unless_stopping() noexcept;
// True when called from a process whose run is stopping.
[[gnu::noinline]] KPN_EXPORT bool current_run_stopping() noexcept;
// Whether the calling worker's run lets a channel hand a value straight to a parked reader
// (Scheduler::direct_handoff); false outside a run's workers.
[[gnu::noinline]] KPN_EXPORT bool current_run_hands_off() noexcept;

class TraceBuffer;
// The trace buffer of the worker this kernel thread runs, or nullptr (not a worker, or the run is not traced).
[[gnu::noinline]] KPN_EXPORT TraceBuffer* current_trace_buffer() noexcept;

namespace detail {
// `index` is the worker's index among its run's workers, -1 for the teardown helper; `hands_off` its
// policy's direct_handoff().
void set_current_worker(Worker* w, int index, RunShared* run, bool hands_off) noexcept;
// The process the calling worker switches to, or nullptr once it is back.
void set_current_process(Process* p) noexcept;
}  // namespace detail

}  // namespace kpn
