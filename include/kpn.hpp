#pragma once
// The one header a kpn user includes: networks, channels (and the non-deterministic select), the runtime
// (timers, blocking calls, cancellation), the built-in schedulers.

#include "channels/channel.hpp"
#include "channels/network.hpp"
#include "channels/select.hpp"
#include "runtime/blocking_call.hpp"
#include "runtime/cancel.hpp"
#include "runtime/runtime.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/this_process.hpp"
#include "runtime/timers.hpp"
#include "schedulers/schedulers.hpp"
