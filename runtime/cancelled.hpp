#pragma once
// How a process is unwound when its network stops.

#include "runtime/export.hpp"

namespace kpn::detail {

// Thrown at a process's blocking points to unwind it when the network stops (a process failed, a
// deadlock, an interrupt). Deliberately not a std::exception, so `catch (const std::exception&)` in user
// code does not swallow it; code that catches everything must rethrow it.
struct KPN_EXPORT Cancelled {};

}  // namespace kpn::detail
