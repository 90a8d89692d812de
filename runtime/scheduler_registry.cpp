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
  SchedulerFactory factory;
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
  entries()[std::move(name)] = Entry{std::move(description), std::move(factory)};
}

std::unique_ptr<Scheduler> make_scheduler(std::string_view name) {
  std::lock_guard g(registry_mutex());
  auto it = entries().find(name);
  if (it == entries().end()) {
    std::string known;
    for (const auto& [n, e] : entries()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument(fmt::format("unknown scheduler '{}' (known: {})", name, known));
  }
  return it->second.factory();
}

std::vector<SchedulerInfo> scheduler_list() {
  std::lock_guard g(registry_mutex());
  std::vector<SchedulerInfo> out;
  for (const auto& [n, e] : entries()) out.push_back({n, e.description});
  return out;
}

}  // namespace kpn
