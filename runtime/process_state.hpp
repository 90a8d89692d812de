#pragma once
// The states of a process and the ways it leaves the CPU.

#include <cstdint>
#include <string_view>

#include "runtime/export.hpp"

namespace kpn {

enum class ProcessState : std::uint8_t { Ready, Running, Blocked, Done };

// Why a running process switched back to its worker. Written by the process on its own stack just before
// the switch, read by the worker just after it.
enum class SwitchReason : std::uint8_t {
  Yield,      // kpn::yield(): requeue at the back of this worker's queue
  LockYield,  // a channel lock was taken: requeue, retry the lock when next run
  Park,       // blocked on a channel: the worker releases the channel lock after the switch
  Exit,       // the body returned or threw: the worker retires the process
};

enum class WaitDirection : std::uint8_t { None, Read, Write };

KPN_EXPORT std::string_view to_string(ProcessState s) noexcept;
KPN_EXPORT std::string_view to_string(WaitDirection d) noexcept;

}  // namespace kpn
