#include "runtime/blocking.hpp"

#include <cassert>
#include <stdexcept>
#include <thread>

#include "runtime/current.hpp"
#include "runtime/process.hpp"
#include "runtime/run_shared.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/this_process.hpp"
#include "runtime/trace_recorder.hpp"
#include "runtime/wait_record.hpp"
#include "runtime/worker.hpp"

namespace kpn {

void park(BusyWaitMutex& lock, Process*& slot, ChannelView& channel, WaitDirection direction) {
  Process* self = current_process();
  assert(self != nullptr && "park() outside a process");
  assert(slot == nullptr && "a channel side has one waiter at most");
  if (self->held_reads_ != nullptr) [[unlikely]] {
    // Before it blocks, the process gives back the reads it holds (held_reads.hpp), with no lock held,
    // and returns as if woken: those slots may be what this wait waits for.
    lock.unlock();
    self->give_back_held_reads();
    return;
  }
  if (self->must_unwind()) {
    lock.unlock();
    throw detail::Cancelled{};
  }
  slot = self;
  const WaitSite site{&lock, &slot};
  if (!self->wait_record_.publish(site, self->cancel_requested_)) {  // cancelled meanwhile (cancel.cpp)
    slot = nullptr;
    lock.unlock();
    throw detail::Cancelled{};
  }
  self->wait_channel_.store(&channel, std::memory_order_relaxed);
  self->wait_direction_.store(direction, std::memory_order_relaxed);
  self->release_after_switch_ = &lock;
  if (self->switches() == 1) [[unlikely]] {
    // Its first run ends in a park: the policy may learn from it (handoff's futile starts).
    if (Worker* w = current_worker()) self->run_.scheduler.on_first_park(*self, *w);
  }
  self->switch_to_worker(SwitchReason::Park);
  // Back on a worker (maybe another one); the lock is not held. Whoever woke us cleared the slot. The
  // wait fields keep their stale values: nobody reads them unless the state says BLOCKED, and then they
  // are those of the current park.
  self->wait_record_.clear();
  if (self->cancel_ || self->cancel_requested()) {
    // Unwinding: resumed by the teardown (nobody woke us, so we are still published in the slot), or
    // readied by a canceller or a waker after a cancel request (a message that arrived stays unread).
    lock.lock();
    if (slot == self) slot = nullptr;
    lock.unlock();
    throw detail::Cancelled{};
  }
}

// The waker owns `p` (it took it out of the waiter slot), so it may set the flow its next run ends.
[[gnu::cold]] void trace_wake(RunShared& run, Process& p, Worker* waker) {
  TraceBuffer* buffer = waker != nullptr ? waker->trace() : nullptr;
  if (buffer == nullptr) {
    p.trace_flow_ = run.trace->add_shared_wake(p.id(), p.wait_channel());
    return;
  }
  const std::uint64_t flow = buffer->new_flow();
  p.trace_flow_ = buffer->add({buffer->now(), 0, p.id(), 0, p.wait_channel(), flow, TraceKind::Wake, 0}) ? flow : 0;
}

void unblock(Process* p) {
  if (p->stopping()) return;
  RunShared& run = p->run_;
  p->transition(ProcessState::Blocked, ProcessState::Ready);  // published by the policy's queue
  Process* self = nullptr;
  Worker* waker = current_worker_of(run, self);
  // Before `p` can run, the count goes up, or a decrement this worker still owes is settled instead
  // (Worker::owe_deactivation). A timed waiter never stopped counting as active (park_until).
  if (!p->waits_with_timer() && (waker == nullptr || !waker->settle_owed_deactivation())) run.quiescence.readied();
  // The process running on this worker, if any, is the waker, and this worker owns it.
  if (self != nullptr) self->readied_ = true;
  if constexpr (kTracingCompiledIn) {
    if (run.trace != nullptr) [[unlikely]] trace_wake(run, *p, waker);
  }
  run.scheduler.on_unblock(*p, waker);
}

bool claim_waiter(Process* p) noexcept {
  if (p->select_.wait.load(std::memory_order_relaxed) == nullptr) return true;
  bool expected = false;
  return p->select_.claimed.compare_exchange_strong(expected, true, std::memory_order_acq_rel);
}

void ForeignWakeList::take(Process*& slot) {
  if (slot == nullptr) return;
  waiters_.reserve(waiters_.size() + 1);
  Process* p = slot;
  ExternalWakers& gate = p->run_.external;  // `p` is parked in the slot, under its lock: alive
  if (!gate.enter()) return;
  slot = nullptr;
  if (claim_waiter(p)) {
    waiters_.push_back({p, &gate});
  } else {
    gate.leave();
  }
}

void ForeignWakeList::wake() noexcept {
  for (const Entry& e : waiters_) {
    unblock(e.process);
    e.gate->leave();
  }
  waiters_.clear();
}

void yield_for_lock() {
  Process* self = current_process();
  self->switch_to_worker(SwitchReason::LockYield);
}

void yield() {
  Process* self = current_process();
  if (self == nullptr) {
    std::this_thread::yield();
    return;
  }
  if (self->must_unwind()) throw detail::Cancelled{};
  self->switch_to_worker(SwitchReason::Yield);
  if (self->cancel_ || self->cancel_requested()) throw detail::Cancelled{};
}

bool in_process() noexcept { return current_process() != nullptr; }

namespace {
Process& require_process(const char* what) {
  Process* self = current_process();
  if (self == nullptr) throw std::logic_error(std::string(what) + " may only be called from a kpn process");
  return *self;
}
}  // namespace

ProcessId spawn(std::string name, UniqueFunction<void()> body, ProcessOptions options) {
  const Process& self = require_process("kpn::spawn");
  if (options.group.empty()) options.group = self.options().group;  // a helper belongs to its spawner's subnetwork
  // The calling worker's run is the process's run (a process runs only on its run's workers).
  return current_run()->spawn(std::move(name), std::move(body), options, current_worker());
}

namespace this_process {
ProcessId id() { return require_process("kpn::this_process::id").id(); }
const std::string& name() { return require_process("kpn::this_process::name").name(); }
int worker() {
  require_process("kpn::this_process::worker");
  return current_worker_index();
}
}  // namespace this_process

}  // namespace kpn
