#include "channels/endpoints.hpp"

#include <fmt/format.h>

#include "channels/channel.hpp"

namespace kpn::detail {

std::string next_channel_name() {
  static std::atomic<std::uint64_t> counter{0};
  return fmt::format("channel-{}", counter.fetch_add(1, std::memory_order_relaxed) + 1);
}

void throw_empty_endpoint(bool writer_side) {
  throw ChannelMisuse(fmt::format("this {} has no channel (default-constructed or moved from)",
                                  writer_side ? "writer" : "reader"));
}

void EndpointOwner::check_slow(ChannelBase& ch, bool writer_side) {
  unwind_if_requested();
  const ProcessId self = current_process_id();
  if (self != 0 && self == id_.load(std::memory_order_relaxed)) return;
  const std::string& channel = ch.name();
  const char* side = writer_side ? "writer" : "reader";
  if (self == 0) {
    throw ChannelMisuse(fmt::format("channel '{}': the {} may only be used from a kpn process", channel, side));
  }
  if (id_.load(std::memory_order_relaxed) == 0) {
    id_.store(self, std::memory_order_relaxed);
    name_ = current_process_name();
    ch.record_endpoint_user(writer_side, self, name_);
    return;
  }
  throw ChannelMisuse(fmt::format("channel '{}': process '{}' used the {} that belongs to process '{}' (a channel has "
                                  "one {}; move the endpoint to hand it over)",
                                  channel, current_process_name(), side, name_, side));
}

}  // namespace kpn::detail
