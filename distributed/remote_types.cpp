#include "distributed/remote_types.hpp"

#include <cstdint>
#include <deque>
#include <mutex>

namespace kpn::distributed {
namespace {

// A deque: lookups hand out pointers, and a registration may come after one.
std::deque<RemoteType>& types() {
  static std::deque<RemoteType> v;
  return v;
}
std::mutex& types_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

RemoteTypeRegistration::RemoteTypeRegistration(RemoteType type) {
  std::lock_guard g(types_mutex());
  types().push_back(std::move(type));
}

const RemoteType* find_remote_type(std::string_view name) {
  std::lock_guard g(types_mutex());
  for (const auto& t : types()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

KPN_REGISTER_REMOTE_TYPE(i64, "i64", std::int64_t);
KPN_REGISTER_REMOTE_TYPE(f64, "f64", double);
KPN_REGISTER_REMOTE_TYPE(string, "string", std::string);

}  // namespace kpn::distributed
