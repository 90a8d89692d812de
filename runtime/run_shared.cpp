#include "runtime/run_shared.hpp"

#include "runtime/network_spec.hpp"
#include "runtime/process.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/trace_recorder.hpp"
#include "runtime/worker.hpp"

namespace kpn {

ProcessId RunShared::spawn(std::string name, UniqueFunction<void()> body, ProcessOptions options, Worker* spawner) {
  validate(name, options);
  if (!options.group.empty()) {
    std::lock_guard g(groups_mutex_);
    groups_.insert(options.group);
  }
  ProcessId id;
  if (spawner != nullptr && spawner->index() >= 0) {
    if (!spawner->has_reserved_id()) {
      spawner->reserve_ids(next_id.fetch_add(config::kWorkerIdBlock, std::memory_order_relaxed), config::kWorkerIdBlock);
    }
    id = spawner->take_reserved_id();
  } else {
    id = next_id.fetch_add(1, std::memory_order_relaxed);
  }
  // The record in a block the spawner's worker kept from a retired process, else a new one.
  void* block = spawner != nullptr && spawner->index() >= 0 ? spawner->process_blocks().take() : nullptr;
  if (block == nullptr) block = ::operator new(sizeof(Process));
  Process* p;
  try {
    p = ::new (block) Process(*this, stop, stacks, id, std::move(name), std::move(body), options);
  } catch (...) {
    ::operator delete(block);
    throw;
  }
  table.insert(*p, spawner != nullptr ? spawner->index() : -1);
  // Before the policy may run it: the count goes up, or a decrement the spawner's worker owes is settled
  // (Worker::owe_deactivation; `spawner` is the calling thread's worker, the only one that touches its debt).
  if (spawner == nullptr || !spawner->settle_owed_deactivation()) quiescence.readied();
  if (!stop.stopping()) scheduler.on_spawn(*p, spawner);  // when stopping, never scheduled: unwound with the rest
  return id;
}

bool RunShared::had_group(std::string_view group) const {
  std::lock_guard g(groups_mutex_);
  return groups_.contains(std::string(group));
}

void RunShared::retire(Process& p, Worker& worker) {
  if constexpr (kTracingCompiledIn) {
    if (trace != nullptr) [[unlikely]] trace->name_process(p.id(), p.name());
  }
  table.retire(p, scheduler.home_of(p));
  p.~Process();
  if (worker.index() < 0 || !worker.process_blocks().keep(&p)) ::operator delete(&p);
  if (worker.index() >= 0) {
    worker.owe_deactivation();  // paid by the worker's next wake-up or spawn, or before it goes idle
  } else {
    quiescence.deactivated();
  }
}

}  // namespace kpn
