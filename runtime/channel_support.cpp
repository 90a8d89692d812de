#include "runtime/channel_support.hpp"

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

WaiterInfo waiter_info(const Process* waiter) noexcept {
  if (waiter == nullptr) return {};
  return {waiter->id(), waiter->park_count()};
}

}  // namespace kpn
