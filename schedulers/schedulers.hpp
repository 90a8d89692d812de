#pragma once
// schedulers/: the scheduling policies, behind runtime's Scheduler interface, each registered by name:
//   ws-cur   work stealing; an unblocked process goes to the front of the waker's queue (seed 000's
//            "original" algorithm)
//   ws-last  work stealing; an unblocked process goes to the front of the queue of the worker it last ran
//            on (seed 000's modification)
//   gp       graph partitioning with METIS: every process runs only on its home worker; the live graph is
//            repartitioned with measured weights when the load drifts (graph_partition.hpp)
//   gp-static the same, with the initial partition only
// Create one with kpn::make_scheduler(name) (runtime/scheduler_registry.hpp), or by name in RuntimeOptions.

#include "runtime/scheduler_registry.hpp"
#include "schedulers/graph_partition.hpp"
#include "schedulers/work_stealing.hpp"
