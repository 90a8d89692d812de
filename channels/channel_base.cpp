#include "channels/channel_base.hpp"

#include <stdexcept>
#include <utility>

#include "runtime/current.hpp"
#include "runtime/process.hpp"
#include "runtime/run_state.hpp"

namespace kpn {

ChannelBase::ChannelBase(std::string name, std::size_t capacity) : capacity_(capacity), name_(std::move(name)) {
  if (capacity == 0) throw std::invalid_argument("channel '" + name_ + "': capacity must be at least 1");
}

ChannelSnapshot ChannelBase::snapshot() const {
  ChannelSnapshot s;
  s.name = name_;
  std::lock_guard g(lock_);
  s.capacity = capacity();
  s.size = size_locked();
  s.messages = messages();
  s.cross_worker_messages = cross_worker_messages_;
  s.closed = closed_;
  if (reader_waiting_ != nullptr) s.reader_waiting = reader_waiting_->name();
  if (writer_waiting_ != nullptr) s.writer_waiting = writer_waiting_->name();
  s.writer = writer_name_;
  s.reader = reader_name_;
  return s;
}

void ChannelBase::grow(std::size_t new_capacity) {
  lock_.lock();
  if (new_capacity > capacity()) capacity_.store(new_capacity, std::memory_order_relaxed);
  Process* writer = std::exchange(writer_waiting_, nullptr);
  lock_.unlock();
  if (writer != nullptr) unblock(writer);
}

void ChannelBase::set_endpoint_names(std::string writer, std::string reader) {
  std::lock_guard g(lock_);
  writer_name_ = std::move(writer);
  reader_name_ = std::move(reader);
}

void ChannelBase::record_endpoint_user(bool writer_side, const std::string& process) noexcept {
  std::lock_guard g(lock_);
  (writer_side ? writer_name_ : reader_name_) = process;
}

void ChannelBase::close() noexcept {
  // While the network stops (a process failed, a deadlock, an interrupt), endpoints are destroyed by
  // unwinding, not by processes that finished their stream: a reader must not mistake that for the end
  // of the stream, so the channel stays open and the reader is unwound where it waits.
  if (Process* self = current_process(); self != nullptr && self->run_state().stopping()) return;
  lock_.lock();
  closed_ = true;
  Process* reader = std::exchange(reader_waiting_, nullptr);
  lock_.unlock();
  if (reader != nullptr) unblock(reader);
}

void ChannelBase::detach_reader() noexcept {
  lock_.lock();
  reader_gone_ = true;
  Process* writer = std::exchange(writer_waiting_, nullptr);
  lock_.unlock();
  if (writer != nullptr) unblock(writer);
}

}  // namespace kpn

#include <fmt/format.h>

#include "channels/channel.hpp"
#include "runtime/run_state.hpp"

namespace kpn::detail {

std::string next_channel_name() {
  static std::atomic<std::uint64_t> counter{0};
  return fmt::format("channel-{}", counter.fetch_add(1, std::memory_order_relaxed) + 1);
}

void register_with_current_run(std::shared_ptr<ChannelView> channel) {
  if (Process* self = current_process()) self->run_state().register_channel(std::move(channel));
}

void throw_empty_endpoint(bool writer_side) {
  throw ChannelMisuse(fmt::format("this {} has no channel (default-constructed or moved from)",
                                  writer_side ? "writer" : "reader"));
}

void EndpointOwner::check_slow(Process* self, ChannelBase& ch, bool writer_side) {
  const std::string& channel = ch.name();
  const char* side = writer_side ? "writer" : "reader";
  if (self == nullptr) {
    throw ChannelMisuse(fmt::format("channel '{}': the {} may only be used from a kpn process", channel, side));
  }
  if (id_.load(std::memory_order_relaxed) == 0) {
    id_.store(self->id(), std::memory_order_relaxed);
    name_ = self->name();
    ch.record_endpoint_user(writer_side, name_);
    return;
  }
  throw ChannelMisuse(fmt::format("channel '{}': process '{}' used the {} that belongs to process '{}' (a channel has "
                                  "one {}; move the endpoint to hand it over)",
                                  channel, self->name(), side, name_, side));
}

}  // namespace kpn::detail
