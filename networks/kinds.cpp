#include "networks/kinds.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "networks/message_types.hpp"

namespace kpn {

const PortSpec* KindSpec::port(std::string_view n) const noexcept {
  for (const auto& p : ports) {
    if (p.name == n) return &p;
  }
  return nullptr;
}

const ArgSpec* KindSpec::arg(std::string_view n) const noexcept {
  for (const auto& a : args) {
    if (a.name == n) return &a;
  }
  return nullptr;
}

KindContext::KindContext(const KindSpec& kind, std::string name, int replica, int replicas,
                         const std::map<std::string, Value>& args,
                         std::map<std::string, std::vector<std::shared_ptr<ChannelBase>>> ports, ResultSink& results)
    : kind_(kind),
      name_(std::move(name)),
      replica_(replica),
      replicas_(replicas),
      args_(args),
      ports_(std::move(ports)),
      results_(results) {}

const Value& KindContext::arg(std::string_view n, ArgType expected) const {
  const ArgSpec* spec = kind_.arg(n);
  if (spec == nullptr) throw std::logic_error(fmt::format("kind '{}' has no argument '{}'", kind_.name, n));
  if (spec->type != expected) {
    throw std::logic_error(fmt::format("kind '{}': argument '{}' is a {}, not a {}", kind_.name, n,
                                       to_string(spec->type), to_string(expected)));
  }
  return args_.at(std::string(n));
}

std::vector<std::shared_ptr<ChannelBase>> KindContext::take(std::string_view port, PortDir dir, bool array) {
  const PortSpec* spec = kind_.port(port);
  if (spec == nullptr) throw std::logic_error(fmt::format("kind '{}' has no port '{}'", kind_.name, port));
  if (spec->dir != dir) {
    throw std::logic_error(fmt::format("kind '{}': port '{}' is an {} port", kind_.name, port,
                                       spec->dir == PortDir::In ? "input" : "output"));
  }
  if (spec->array != array) {
    throw std::logic_error(fmt::format("kind '{}': port '{}' is {}an array port", kind_.name, port, spec->array ? "" : "not "));
  }
  auto it = ports_.find(std::string(port));
  if (it == ports_.end()) {
    throw std::logic_error(fmt::format("process '{}': port '{}' was already taken", name_, port));
  }
  auto channels = std::move(it->second);
  ports_.erase(it);
  return channels;
}

std::vector<bool> KindContext::feedback(std::string_view port) const {
  auto it = feedback_.find(std::string(port));
  return it == feedback_.end() ? std::vector<bool>{} : it->second;
}

void KindContext::throw_type_mismatch(const ChannelBase& c, const std::type_info& requested) const {
  const MessageType* t = find_message_type(std::type_index(requested));
  throw std::logic_error(fmt::format("kind '{}': channel '{}' does not carry the type the kind asked for ({})",
                                     kind_.name, c.name(), t != nullptr ? t->name : requested.name()));
}

namespace {
std::map<std::string, KindSpec, std::less<>>& kinds() {
  static std::map<std::string, KindSpec, std::less<>> m;
  return m;
}
std::mutex& kinds_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

// A second registration of a name is refused, not applied: replacing the spec would leave every
// `const KindSpec*` taken from the first (in resolved networks) dangling. Thrown from a static
// constructor, so from dlopen() for a plugin; kpn-run reports it naming the library.
KindRegistration::KindRegistration(KindSpec spec) {
  std::lock_guard g(kinds_mutex());
  std::string name = spec.name;
  if (!kinds().emplace(name, std::move(spec)).second) {
    throw std::logic_error(fmt::format("the process kind '{}' is registered twice", name));
  }
}

const KindSpec* find_kind(std::string_view name) {
  std::lock_guard g(kinds_mutex());
  auto it = kinds().find(name);
  return it == kinds().end() ? nullptr : &it->second;
}

std::vector<const KindSpec*> kind_list() {
  std::lock_guard g(kinds_mutex());
  std::vector<const KindSpec*> out;
  for (const auto& [n, k] : kinds()) out.push_back(&k);
  return out;
}

}  // namespace kpn
