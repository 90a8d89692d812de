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

// Creates the named policy; throws std::invalid_argument listing the known names if there is none.
KPN_EXPORT std::unique_ptr<Scheduler> make_scheduler(std::string_view name);
// Every registered policy, sorted by name.
KPN_EXPORT std::vector<SchedulerInfo> scheduler_list();

struct KPN_EXPORT SchedulerRegistration {
  SchedulerRegistration(std::string name, std::string description, SchedulerFactory factory);
};

}  // namespace kpn
