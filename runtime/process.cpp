#include "runtime/process.hpp"

#include <cassert>
#include <stdexcept>
#include <thread>

#include "runtime/blocking.hpp"
#include "runtime/current.hpp"
#include "runtime/process_exit.hpp"
#include "runtime/run_state.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/stack_pool.hpp"
#include "runtime/this_process.hpp"
#include "runtime/asan.hpp"
#include "runtime/tsan.hpp"
#include "runtime/worker.hpp"

namespace kpn {

namespace ctx = boost::context;

Process::Process(RunState& run, ProcessId id, std::string name, UniqueFunction<void()> body, ProcessOptions options)
    : home_worker(options.home_worker),
      run_(run),
      id_(id),
      name_(std::move(name)),
      options_(options),
      body_(std::move(body)) {
#if defined(KPN_TSAN)
  // Creating a fiber jumps onto its stack and back; tell TSan so the creator's shadow stack stays balanced.
  void* creator = KPN_TSAN_CURRENT_FIBER();
  tsan_fiber_ = KPN_TSAN_CREATE_FIBER();
  KPN_TSAN_SWITCH_TO(tsan_fiber_);
#endif
  context_ = ctx::fiber(std::allocator_arg, PooledStack(run.stacks(), options.stack_size, &stack),
                        [this](ctx::fiber&& worker) { return entry(std::move(worker)); });
#if defined(KPN_TSAN)
  KPN_TSAN_SWITCH_TO(creator);
#endif
}

ctx::fiber Process::entry(ctx::fiber&& worker) {
#if defined(KPN_ASAN)
  KPN_ASAN_FINISH_SWITCH(nullptr, &resumer_stack_bottom_, &resumer_stack_size_);
#endif
  worker_ = std::move(worker);
  if (!cancel_) {
    try {
      body_();
    } catch (const detail::Cancelled&) {
    } catch (const ProcessExit&) {
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
  // A failure stops the network before the body's captures go: a writer destroyed now must not look like
  // a normal end of stream to its reader (channels do not close while the network stops).
  if (failure_) run_.process_failed(*this, failure_);
  failure_ = nullptr;
  // The captures (channel endpoints) are destroyed here, on this stack and as this process, because
  // closing a channel may take its lock and wake its reader.
  body_ = nullptr;
  reason_ = SwitchReason::Exit;
  // No TSan fiber switch here: the frames below still return on this stack. The worker announces the
  // switch once the final jump has landed (Worker::run_process).
#if defined(KPN_ASAN)
  KPN_ASAN_START_SWITCH(nullptr, resumer_stack_bottom_, resumer_stack_size_);  // nullptr: this stack dies
#endif
  return std::move(worker_);
}

void Process::switch_to_worker(SwitchReason why) {
  reason_ = why;
#if defined(KPN_TSAN)
  KPN_TSAN_SWITCH_TO(resumer_tsan_fiber_);
#endif
#if defined(KPN_ASAN)
  KPN_ASAN_START_SWITCH(&asan_fake_stack_, resumer_stack_bottom_, resumer_stack_size_);
#endif
  worker_ = std::move(worker_).resume();
#if defined(KPN_ASAN)
  KPN_ASAN_FINISH_SWITCH(asan_fake_stack_, &resumer_stack_bottom_, &resumer_stack_size_);
#endif
}

void park(BusyWaitMutex& lock, Process*& slot, ChannelView& channel, WaitDirection direction) {
  Process* self = current_process();
  assert(self != nullptr && "park() outside a process");
  assert(slot == nullptr && "a channel side has one waiter at most");
  if (self->run_.stopping()) {
    lock.unlock();
    throw detail::Cancelled{};
  }
  slot = self;
  self->wait_channel = &channel;
  self->wait_direction = direction;
  self->release_after_switch_ = &lock;
  self->resume_point_ = ResumePoint::Park;
  self->switch_to_worker(SwitchReason::Park);
  // Back on a worker (maybe another one); the lock is not held.
  self->wait_channel = nullptr;
  self->wait_direction = WaitDirection::None;
  if (self->cancel_) {
    // Unwinding: nobody woke us, so we are still published in the slot.
    lock.lock();
    if (slot == self) slot = nullptr;
    lock.unlock();
    throw detail::Cancelled{};
  }
}

void unblock(Process* p) {
  RunState& run = p->run_;
  if (run.stopping()) return;
  assert(p->state() == ProcessState::Blocked);
  p->state_.store(ProcessState::Ready, std::memory_order_relaxed);  // published by the queue's lock
  run.process_unblocked();
  Worker* waker = current_worker();
  run.scheduler().on_unblock(*p, waker != nullptr && &waker->run_state() == &run ? waker : nullptr);
}

void yield_for_lock() {
  Process* self = current_process();
  self->resume_point_ = ResumePoint::LockYield;
  self->switch_to_worker(SwitchReason::LockYield);
}

void yield() {
  Process* self = current_process();
  if (self == nullptr) {
    std::this_thread::yield();
    return;
  }
  if (self->run_.stopping()) throw detail::Cancelled{};
  self->resume_point_ = ResumePoint::Yield;
  self->switch_to_worker(SwitchReason::Yield);
  if (self->cancel_) throw detail::Cancelled{};
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
  Process& self = require_process("kpn::spawn");
  return self.run_state().spawn(std::move(name), std::move(body), options, current_worker());
}

namespace this_process {
ProcessId id() { return require_process("kpn::this_process::id").id(); }
const std::string& name() { return require_process("kpn::this_process::name").name(); }
int worker() {
  require_process("kpn::this_process::worker");
  return current_worker()->index();
}
}  // namespace this_process

}  // namespace kpn
