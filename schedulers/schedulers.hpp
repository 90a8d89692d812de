#pragma once
// schedulers/: the scheduling policies, behind runtime's Scheduler interface, each registered by name:
//   ws-cur   work stealing; an unblocked process goes to the front of the waker's queue (seed 000's
//            "original" algorithm)
//   ws-last  work stealing; an unblocked process goes to the front of the queue of the worker it last ran
//            on (seed 000's modification)
// Create one with kpn::make_scheduler(name) (runtime/scheduler_registry.hpp), or by name in RuntimeOptions.

#include "runtime/scheduler_registry.hpp"
#include "schedulers/work_stealing.hpp"
