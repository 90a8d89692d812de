#pragma once
// What a running process may ask of the runtime.

#include <string>

#include "runtime/export.hpp"
#include "runtime/process_id.hpp"
#include "runtime/process_options.hpp"
#include "runtime/unique_function.hpp"

namespace kpn {

// Starts a new process in the running network; it is placed on the spawner's worker (or as the scheduler
// decides). Only from inside a process (std::logic_error otherwise). Returns the new id.
KPN_EXPORT ProcessId spawn(std::string name, UniqueFunction<void()> body, ProcessOptions options = {});

// Lets the worker run other processes; this one continues later. Outside a process it yields the thread.
KPN_EXPORT void yield();

// Gives the CPU to other processes while a channel lock is held elsewhere (BusyWaitMutex only).
KPN_EXPORT void yield_for_lock();

// True when called from a process.
KPN_EXPORT bool in_process() noexcept;

namespace this_process {
// The calling process's id and name; std::logic_error outside a process.
KPN_EXPORT ProcessId id();
KPN_EXPORT const std::string& name();
// The worker the calling process runs on now.
KPN_EXPORT int worker();
}  // namespace this_process

}  // namespace kpn
