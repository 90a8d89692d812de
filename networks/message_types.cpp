#include "networks/message_types.hpp"

#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace kpn {
namespace {

// A deque: registrations (plugins) may come after lookups, and lookups hand out pointers.
std::deque<MessageType>& types() {
  static std::deque<MessageType> v;
  return v;
}
std::mutex& types_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

MessageTypeRegistration::MessageTypeRegistration(MessageType type) {
  std::lock_guard g(types_mutex());
  types().push_back(std::move(type));
}

const MessageType* find_message_type(std::string_view name) {
  std::lock_guard g(types_mutex());
  for (const auto& t : types()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const MessageType* find_message_type(std::type_index type) {
  std::lock_guard g(types_mutex());
  for (const auto& t : types()) {
    if (t.type == type) return &t;
  }
  return nullptr;
}

KPN_REGISTER_MESSAGE_TYPE(i64, "i64", std::int64_t);
KPN_REGISTER_MESSAGE_TYPE(f64, "f64", double);
KPN_REGISTER_MESSAGE_TYPE(string, "string", std::string);

}  // namespace kpn
