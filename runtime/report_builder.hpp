#pragma once
// Assembles a run's report from its parts, once every worker has stopped.

#include <cstdint>
#include <span>

#include "runtime/report.hpp"

namespace kpn {

class Scheduler;
class Worker;
struct RunShared;

// `wall_s` and `ticks` are the run's length in seconds and in cycle_clock ticks (their ratio converts CPU
// times). `deadlocks_resolved` comes from the deadlock monitor.
RunReport build_report(RunShared& run, std::span<Worker* const> workers, double wall_s, std::uint64_t ticks,
                       std::uint64_t deadlocks_resolved);

}  // namespace kpn
