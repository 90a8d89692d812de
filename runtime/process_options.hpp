#pragma once

#include <cstddef>

#include "runtime/config.hpp"

namespace kpn {

// Per-process settings given at creation.
struct ProcessOptions {
  // Usable stack in bytes (rounded up to whole pages); a guard page sits below it. See config.hpp.
  std::size_t stack_size = config::kDefaultStackSize;
  // Worker the process prefers, or -1 for none. Placement policies may use it (gp pins processes to it);
  // the work-stealing policies ignore it.
  int home_worker = -1;
};

}  // namespace kpn
