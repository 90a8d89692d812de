#include "runtime/network_spec.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace kpn {

void validate(const std::string& name, const ProcessOptions& options) {
  if (options.stack_size < config::kMinStackSize || options.stack_size > config::kMaxStackSize) {
    throw std::invalid_argument(fmt::format("process '{}': stack size {} bytes is outside [{}, {}]", name,
                                            options.stack_size, config::kMinStackSize, config::kMaxStackSize));
  }
  if (options.priority < config::kMinPriority || options.priority > config::kMaxPriority) {
    throw std::invalid_argument(fmt::format("process '{}': priority {} is outside [{}, {}]", name, options.priority,
                                            config::kMinPriority, config::kMaxPriority));
  }
}

void NetworkSpec::add_process(std::string name, UniqueFunction<void()> body, ProcessOptions options) {
  if (taken_) throw std::logic_error("cannot add a process to a network that has already run");
  if (!body) throw std::invalid_argument(fmt::format("process '{}' has no body", name));
  validate(name, options);
  if (!names_.insert(name).second) throw std::invalid_argument(fmt::format("duplicate process name '{}'", name));
  processes_.push_back(ProcessSpec{std::move(name), std::move(body), options});
}

void NetworkSpec::add_channel(std::shared_ptr<ChannelView> channel) { channels_.push_back(std::move(channel)); }

std::vector<ProcessSpec> NetworkSpec::take_processes() {
  if (taken_) throw std::logic_error("this network has already run; build a new one to run again");
  taken_ = true;
  names_.clear();
  return std::move(processes_);
}

}  // namespace kpn
