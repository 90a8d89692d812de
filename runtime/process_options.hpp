#pragma once

#include <cstddef>
#include <string>

#include "runtime/config.hpp"

namespace kpn {

// Per-process settings given at creation.
struct ProcessOptions {
  // Usable stack in bytes (rounded up to whole pages); a guard page sits below it. See config.hpp.
  std::size_t stack_size = config::kDefaultStackSize;
  // Worker the process prefers, or -1 for none. Placement policies may use it (gp pins processes to it);
  // the work-stealing policies ignore it.
  int home_worker = -1;
  // A hint for policies that order a worker's queue (steal-half): among the processes queued on one
  // worker, a higher priority runs first, and thieves take the lowest first. config::kMinPriority to
  // config::kMaxPriority (0 to 7); anything else is refused with std::invalid_argument. Other policies
  // ignore it.
  int priority = config::kDefaultPriority;
  // The group the process belongs to, for cancelling a subnetwork at once (kpn::cancel_group,
  // Runtime::cancel_group; cancel.hpp); "" for none. A process spawned with no group joins its spawner's.
  std::string group = {};
};

}  // namespace kpn
