#pragma once
// Maps a policy name ("ws-last") to a factory. Policies register themselves with a static
// SchedulerRegistration in their own translation unit; libkpn is a shared library, so every built-in
// registration runs when it is loaded, and a plugin library can add policies the same way.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/scheduler.hpp"

namespace kpn {

struct SchedulerInfo {
  std::string name;
  std::string description;
};

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>()>;
// For a policy with settings: validates `options` and throws std::invalid_argument naming the allowed keys
// and values on an unknown key or a bad value.
using ConfigurableSchedulerFactory = std::function<std::unique_ptr<Scheduler>(const SchedulerOptions& options)>;

// Creates the named policy; throws std::invalid_argument listing the known names if there is none.
KPN_EXPORT std::unique_ptr<Scheduler> make_scheduler(std::string_view name);
// The same with settings; std::invalid_argument also when the policy refuses them (one without settings
// refuses any).
KPN_EXPORT std::unique_ptr<Scheduler> make_scheduler(std::string_view name, const SchedulerOptions& options);
// Parses "key=value" (kpn-run --scheduler-option); std::invalid_argument if there is no '=' or no key.
KPN_EXPORT std::pair<std::string, std::string> parse_scheduler_option(std::string_view text);
// Every registered policy, sorted by name.
KPN_EXPORT std::vector<SchedulerInfo> scheduler_list();

struct KPN_EXPORT SchedulerRegistration {
  SchedulerRegistration(std::string name, std::string description, SchedulerFactory factory);
  SchedulerRegistration(std::string name, std::string description, ConfigurableSchedulerFactory factory);
};

}  // namespace kpn
