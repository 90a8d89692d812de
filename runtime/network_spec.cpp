#include "runtime/network_spec.hpp"

#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "runtime/duplicate_name.hpp"

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
  processes_.push_back(ProcessSpec{std::move(name), std::move(body), options});
}

void NetworkSpec::add_channel(std::shared_ptr<ChannelView> channel) { channels_.push_back(std::move(channel)); }

std::vector<ProcessSpec> NetworkSpec::take_processes() {
  if (taken_) throw std::logic_error("this network has already run; build a new one to run again");
  std::vector<std::string_view> names;
  names.reserve(processes_.size());
  for (const auto& p : processes_) names.emplace_back(p.name);
  if (const auto twin = find_duplicate_name(names)) {
    throw std::invalid_argument(fmt::format("duplicate process name '{}'", *twin));
  }
  taken_ = true;
  return std::move(processes_);
}

}  // namespace kpn
