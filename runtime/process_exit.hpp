#pragma once

#include "runtime/export.hpp"

namespace kpn {

// Thrown to end the current process normally from anywhere in its call stack: the runtime catches it at
// the process's entry and treats the process as finished, not failed. Channels throw a subclass
// (BrokenChannel) when a process writes to a channel whose reader is gone, which ends a producer quietly
// the way SIGPIPE ends a Unix pipeline stage. Not a std::exception, so `catch (const std::exception&)`
// does not swallow it.
struct KPN_EXPORT ProcessExit {
  virtual ~ProcessExit() = default;
};

}  // namespace kpn
