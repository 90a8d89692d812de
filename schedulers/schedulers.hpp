#pragma once
// schedulers/: the scheduling policies, behind runtime's Scheduler interface, each in one file pair that
// registers it by name (kpn-run --help and kpn::scheduler_list() show them all):
//   handoff   the default: work stealing where a woken process runs next on its waker's worker, thieves
//             take half a queue, and idle workers sleep (handoff.hpp)
//   ws-cur    work stealing; an unblocked process goes to the front of the waker's queue (the Nornir
//             paper's "original" algorithm)
//   ws-last   work stealing; an unblocked process goes to the front of the queue of the worker it last ran
//             on (the paper's modification)
//   gp        graph partitioning with METIS: every process runs only on its home worker; the live graph is
//             repartitioned with measured weights when the load drifts (graph_partition.hpp)
//   gp-static the same, with the initial partition only
//   local     per-worker queues without stealing; a process stays where it was placed (local.hpp)
//   global    one FIFO queue shared by every worker (global.hpp)
//   steal-half  Pheet's stealing: priority queues, thieves take half from the nearest victim (steal_half.hpp)
//   success-only  thieves register steal requests and victims push work to them: no steal attempt fails
//             (success_only.hpp)
//   speed-balance  per-worker queues; a fast worker pulls one process from the slowest, speed being the CPU
//             time a worker received over wall time; for shared machines (speed_balance.hpp)
// Create one with kpn::make_scheduler(name) (runtime/scheduler_registry.hpp), or by name in RuntimeOptions.

#include "runtime/scheduler_registry.hpp"
#include "schedulers/global.hpp"
#include "schedulers/graph_partition.hpp"
#include "schedulers/handoff.hpp"
#include "schedulers/local.hpp"
#include "schedulers/speed_balance.hpp"
#include "schedulers/success_only.hpp"
#include "schedulers/work_stealing.hpp"
