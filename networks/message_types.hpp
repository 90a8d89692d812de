#pragma once
// Message types that ports may declare, by name. A channel between two ports carries their common type;
// the builder creates it through the factory registered here. Built in: "i64" (std::int64_t),
// "f64" (double), "string" (std::string). Register more with KPN_REGISTER_MESSAGE_TYPE(name, T).

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>

#include "channels/channel.hpp"
#include "runtime/export.hpp"

namespace kpn {

struct KPN_EXPORT MessageType {
  std::string name;
  std::type_index type;
  std::function<std::shared_ptr<ChannelBase>(std::string name, std::size_t capacity)> make_channel;
};

KPN_EXPORT const MessageType* find_message_type(std::string_view name);
KPN_EXPORT const MessageType* find_message_type(std::type_index type);

struct KPN_EXPORT MessageTypeRegistration {
  explicit MessageTypeRegistration(MessageType type);
};

template <class T>
MessageType message_type(std::string name) {
  return MessageType{std::move(name), std::type_index(typeid(T)), [](std::string n, std::size_t capacity) {
                       return std::static_pointer_cast<ChannelBase>(std::make_shared<Channel<T>>(std::move(n), capacity));
                     }};
}

#define KPN_REGISTER_MESSAGE_TYPE(ident, name, T) \
  static const ::kpn::MessageTypeRegistration kpn_message_type_##ident{::kpn::message_type<T>(name)}

}  // namespace kpn
