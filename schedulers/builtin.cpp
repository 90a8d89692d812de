// Registers the built-in policies by name.

#include <memory>

#include "runtime/scheduler_registry.hpp"
#include "schedulers/graph_partition.hpp"
#include "schedulers/work_stealing.hpp"

namespace kpn {
namespace {

const SchedulerRegistration ws_cur{
    "ws-cur", "work stealing; an unblocked process goes to the waker's worker (seed 000, original)",
    [] { return std::make_unique<WorkStealingScheduler>(WorkStealingScheduler::Unblock::Current); }};

const SchedulerRegistration ws_last{
    "ws-last", "work stealing; an unblocked process goes to the worker it last ran on (seed 000, modified)",
    [] { return std::make_unique<WorkStealingScheduler>(WorkStealingScheduler::Unblock::Last); }};

const SchedulerRegistration gp{
    "gp", "graph partitioning (METIS): each process runs on its home worker; repartitions when the load drifts",
    [] { return std::make_unique<GraphPartitionScheduler>(); }};

const SchedulerRegistration gp_static{
    "gp-static", "graph partitioning (METIS) of the initial network only; never repartitions",
    [] { return std::make_unique<GraphPartitionScheduler>(GraphPartitionScheduler::Tuning{.repartition = false}); }};

}  // namespace
}  // namespace kpn
