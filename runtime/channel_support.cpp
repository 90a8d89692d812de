#include "runtime/channel_support.hpp"

#include <exception>

#include "runtime/cancelled.hpp"
#include "runtime/current.hpp"
#include "runtime/process.hpp"
#include "runtime/run_shared.hpp"

namespace kpn {

const std::string& current_process_name() noexcept {
  static const std::string none;
  const Process* self = current_process();
  return self != nullptr ? self->name() : none;
}

void register_with_current_run(std::shared_ptr<ChannelView> channel) {
  if (current_process() == nullptr) return;
  if (RunShared* run = current_run()) run->channels.add(std::move(channel));
}

bool current_must_unwind() noexcept {
  const Process* self = current_process();
  return self != nullptr && self->must_unwind();
}

void unwind_if_requested() {
  if (current_must_unwind() && std::uncaught_exceptions() == 0) throw detail::Cancelled{};
}

WaiterInfo waiter_info(const Process* waiter) noexcept {
  if (waiter == nullptr) return {};
  // timed_ is stored before the waiter is published in its slot, both under the slot's lock (timed_wait.cpp,
  // multi_wait.cpp), and cleared only after it has left the slot: under that lock it is the wait's.
  return {waiter->id(), waiter->park_count(), waiter->waits_with_timer()};
}

}  // namespace kpn
