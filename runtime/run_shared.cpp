#include "runtime/run_shared.hpp"

#include "runtime/network_spec.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler.hpp"

namespace kpn {

ProcessId RunShared::spawn(std::string name, UniqueFunction<void()> body, ProcessOptions options, Worker* spawner) {
  validate(name, options);
  const ProcessId id = next_id.fetch_add(1, std::memory_order_relaxed);
  auto* p = new Process(*this, stop, stacks, id, std::move(name), std::move(body), options);
  table.insert(*p);
  quiescence.spawned();
  if (!stop.stopping()) scheduler.on_spawn(*p, spawner);  // when stopping, never scheduled: unwound with the rest
  return id;
}

void RunShared::retire(Process& p) {
  table.retire(p, scheduler.home_of(p));
  delete &p;
  quiescence.exited();
}

}  // namespace kpn
