#pragma once
// The typed half of a channel kind: what a Writer<T> and a Reader<T> call.

#include <cstdint>
#include <optional>

#include "channels/channel_base.hpp"
#include "channels/timed_result.hpp"

namespace kpn {

template <class T>
class TypedChannel : public ChannelBase {
 public:
  // Blocks while the channel cannot take the value. Throws ChannelClosed after close(), BrokenChannel
  // once the reader is gone.
  virtual void write(T&& value) = 0;
  // Blocks while nothing is there and the stream is open. std::nullopt once it is closed and drained.
  virtual std::optional<T> read() = 0;
  // The same, waiting at most until `deadline_ns` (steady_ns; detail::kNoWait: not at all). write_until
  // moves from `value` only when it returns Ok.
  virtual WriteStatus write_until(T& value, std::int64_t deadline_ns) = 0;
  virtual ReadResult<T> read_until(std::int64_t deadline_ns) = 0;
};

}  // namespace kpn
