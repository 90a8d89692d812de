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
      // The holder may be a thread that is not running: one that is not a worker (the deadlock monitor),
      // waiting for this CPU behind this worker at the same real-time priority (SCHED_FIFO never hands the
      // CPU over by itself). A worker with nothing else to run would then switch to this process for ever;
      // every kSpinsBeforeYield turns it gives the CPU away once (a hint under the default policy).
      if (++spins >= config::kSpinsBeforeYield) {
        spins = 0;
        sched_yield();
      }
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
