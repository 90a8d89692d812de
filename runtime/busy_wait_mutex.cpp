#include "runtime/busy_wait_mutex.hpp"

#include <sched.h>

#include "runtime/config.hpp"
#include "runtime/cpu_relax.hpp"
#include "runtime/current.hpp"
#include "runtime/process.hpp"
#include "runtime/this_process.hpp"

namespace kpn {

void BusyWaitMutex::lock_contended() {
  int spins = 0;
  for (;;) {
    Process* self = current_process();
    if (self != nullptr && !self->stopping()) {
      yield_for_lock();
    } else if (++spins < config::kSpinsBeforeYield) {
      cpu_relax();
    } else {
      spins = 0;
      sched_yield();
    }
    if (try_lock()) return;
  }
}

}  // namespace kpn
