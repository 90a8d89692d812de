#pragma once
// The typed half of a channel kind: what a Writer<T> and a Reader<T> call.

#include <optional>

#include "channels/channel_base.hpp"

namespace kpn {

template <class T>
class TypedChannel : public ChannelBase {
 public:
  // Blocks while the channel cannot take the value. Throws ChannelClosed after close(), BrokenChannel
  // once the reader is gone.
  virtual void write(T&& value) = 0;
  // Blocks while nothing is there and the stream is open. std::nullopt once it is closed and drained.
  virtual std::optional<T> read() = 0;
};

}  // namespace kpn
