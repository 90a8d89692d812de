#include "runtime/scheduler_registry.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

namespace kpn {
namespace {

struct Entry {
  std::string description;
  ConfigurableSchedulerFactory factory;
};

// Function-local statics: registrations run during static initialisation, in no defined order.
std::map<std::string, Entry, std::less<>>& entries() {
  static std::map<std::string, Entry, std::less<>> m;
  return m;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

SchedulerRegistration::SchedulerRegistration(std::string name, std::string description, SchedulerFactory factory) {
  std::lock_guard g(registry_mutex());
  std::string policy = name;
  entries()[std::move(name)] = Entry{
      std::move(description), [policy = std::move(policy), factory = std::move(factory)](const SchedulerOptions& options) {
        if (!options.empty()) {
          throw std::invalid_argument(
              fmt::format("scheduler '{}' takes no options (got '{}')", policy, options.front().first));
        }
        return factory();
      }};
}

SchedulerRegistration::SchedulerRegistration(std::string name, std::string description,
                                             ConfigurableSchedulerFactory factory) {
  std::lock_guard g(registry_mutex());
  entries()[std::move(name)] = Entry{std::move(description), std::move(factory)};
}

std::unique_ptr<Scheduler> make_scheduler(std::string_view name) { return make_scheduler(name, {}); }

std::pair<std::string, std::string> parse_scheduler_option(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw std::invalid_argument(fmt::format("scheduler option '{}' is not key=value", text));
  }
  return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

std::unique_ptr<Scheduler> make_scheduler(std::string_view name, const SchedulerOptions& options) {
  std::lock_guard g(registry_mutex());
  auto it = entries().find(name);
  if (it == entries().end()) {
    std::string known;
    for (const auto& [n, e] : entries()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument(fmt::format("unknown scheduler '{}' (known: {})", name, known));
  }
  // The factory runs under the registry's lock: it only validates and constructs.
  return it->second.factory(options);
}

std::vector<SchedulerInfo> scheduler_list() {
  std::lock_guard g(registry_mutex());
  std::vector<SchedulerInfo> out;
  for (const auto& [n, e] : entries()) out.push_back({n, e.description});
  return out;
}

}  // namespace kpn
