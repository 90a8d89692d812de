#include "runtime/run_shared.hpp"

#include "runtime/network_spec.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/trace_recorder.hpp"

namespace kpn {

ProcessId RunShared::spawn(std::string name, UniqueFunction<void()> body, ProcessOptions options, Worker* spawner) {
  validate(name, options);
  if (!options.group.empty()) {
    std::lock_guard g(groups_mutex_);
    groups_.insert(options.group);
  }
  const ProcessId id = next_id.fetch_add(1, std::memory_order_relaxed);
  auto* p = new Process(*this, stop, stacks, id, std::move(name), std::move(body), options);
  table.insert(*p);
  quiescence.spawned();
  if (!stop.stopping()) scheduler.on_spawn(*p, spawner);  // when stopping, never scheduled: unwound with the rest
  return id;
}

bool RunShared::had_group(std::string_view group) const {
  std::lock_guard g(groups_mutex_);
  return groups_.contains(std::string(group));
}

void RunShared::retire(Process& p) {
  if constexpr (kTracingCompiledIn) {
    if (trace != nullptr) [[unlikely]] trace->name_process(p.id(), p.name());
  }
  table.retire(p, scheduler.home_of(p));
  delete &p;
  quiescence.exited();
}

}  // namespace kpn
