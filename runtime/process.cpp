#include "runtime/process.hpp"

#include <cassert>
#include <cstddef>
#include <utility>

#include "runtime/cancelled.hpp"
#include "runtime/direct_switch.hpp"
#include "runtime/process_exit.hpp"
#include "runtime/stack_pool.hpp"

namespace kpn {

namespace ctx = boost::context;

Process::Process(RunShared& run, StopState& stop, StackPool& stacks, ProcessId id, std::string name,
                 UniqueFunction<void()> body, ProcessOptions options)
    : run_(run), stop_(stop), stacks_(stacks), id_(id), name_(std::move(name)), options_(options),
      body_(std::move(body)) {
  // The layout process.hpp promises for the fields a waker touches (offsetof on a class that is not
  // standard-layout is conditionally supported; GCC and Clang compute it).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
  static_assert(offsetof(Process, state_) % 16 == 0 &&
                    offsetof(Process, last_worker_) < offsetof(Process, state_) + 8 &&
                    offsetof(Process, select_) == offsetof(Process, state_) + 8 && offsetof(SelectState, wait) == 0,
                "state_, timed_, last_worker_ and select_.wait must fill 16 bytes from a 16-byte boundary");
#pragma GCC diagnostic pop
  static_assert(alignof(Process) >= 16 && __STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16);
}

void Process::create_context() {
#if defined(KPN_TSAN)
  // Creating a fiber jumps onto its stack and back; tell TSan so the creator's shadow stack stays balanced.
  void* creator = KPN_TSAN_CURRENT_FIBER();
  if (tsan_fiber_ == nullptr) tsan_fiber_ = KPN_TSAN_CREATE_FIBER();  // kept from a try that could not map
  KPN_TSAN_SWITCH_TO(tsan_fiber_);
  struct BackToCreator {
    void* creator;
    ~BackToCreator() { KPN_TSAN_SWITCH_TO(creator); }
  } back{creator};
#endif
  context_ = ctx::fiber(std::allocator_arg, PooledStack(stacks_, options_.stack_size, &stack_),
                        [this](ctx::fiber&& worker) { return entry(std::move(worker)); });
}

Process::~Process() {
#if defined(KPN_TSAN)
  if (tsan_fiber_ != nullptr) KPN_TSAN_DESTROY_FIBER(tsan_fiber_);
#endif
}

void Process::check_transition(ProcessState from, ProcessState to) noexcept {
  const bool ok = state_.compare_exchange_strong(from, to, std::memory_order_acq_rel);
  assert(ok && "process state transition from a state the process is not in");
  (void)ok;
}

ctx::fiber Process::entry(ctx::fiber&& worker) {
#if defined(KPN_ASAN)
  KPN_ASAN_FINISH_SWITCH(nullptr, &resumer_stack_bottom_, &resumer_stack_size_);
#endif
  worker_ = std::move(worker);
  if (cancel_requested()) {
    cancelled_ = true;  // cancelled before it ever ran: the body does not start
  } else if (!cancel_) {
    try {
      body_();
    } catch (const detail::Cancelled&) {
      cancelled_ = cancel_requested();  // not when the whole run stopped
    } catch (const ProcessExit&) {
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
  // The body is over: the slots of the messages it read without the lock are freed before its endpoints
  // go, so its writers see the exact count (held_reads.hpp).
  give_back_held_reads();
  // A failure stops the network before the body's captures go: a writer destroyed now must not look like
  // a normal end of stream to its reader (channels do not close while the network stops).
  if (failure_) stop_.process_failed(name_, failure_);
  failure_ = nullptr;
  // The captures (channel endpoints) are destroyed here, on this stack and as this process, because
  // closing a channel may take its lock and wake its reader.
  body_ = nullptr;
  reason_ = SwitchReason::Exit;
  // No TSan fiber switch here: the frames below still return on this stack. The worker announces the
  // switch once the final jump has landed (WorkerThread::run_process).
#if defined(KPN_ASAN)
  KPN_ASAN_START_SWITCH(nullptr, resumer_stack_bottom_, resumer_stack_size_);  // nullptr: this stack dies
#endif
  return std::move(worker_);
}

void Process::give_back_held_reads() noexcept {
  if (held_reads_ == nullptr) return;
  std::exchange(held_reads_, nullptr)->give_back_reads();
}

void Process::switch_to_worker(SwitchReason why) {
  reason_ = why;
  // A park or a yield may go straight to the next process (an exit needs the loop, which frees its stack).
  if ((why == SwitchReason::Park || why == SwitchReason::Yield) && detail::switch_directly(*this)) return;
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

}  // namespace kpn
