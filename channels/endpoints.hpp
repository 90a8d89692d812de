#pragma once
// The two ends of a channel. Each is move-only, so a channel has exactly one of each; an endpoint is bound
// to the first process that uses it, and a use by any other process throws ChannelMisuse (moving an
// endpoint, to hand it to a new process, clears the binding). Destroying the writer closes the channel;
// destroying the reader makes further writes throw BrokenChannel.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "channels/channel_base.hpp"
#include "channels/errors.hpp"
#include "runtime/current.hpp"
#include "runtime/process.hpp"

namespace kpn {

template <class T>
class Channel;

namespace detail {

// The binding of an endpoint to the one process allowed to use it.
class EndpointOwner {
 public:
  EndpointOwner() = default;
  EndpointOwner(EndpointOwner&&) noexcept {}  // a moved endpoint is unbound
  EndpointOwner& operator=(EndpointOwner&&) noexcept {
    id_ = 0;
    return *this;
  }
  bool bound() const noexcept { return id_ != 0; }
  // Binds on first use; throws ChannelMisuse if the caller is not a process or not the bound one.
  void check(ChannelBase& channel, bool writer_side) {
    Process* self = current_process();
    if (self != nullptr && self->id() == id_) return;
    check_slow(self, channel, writer_side);
  }

 private:
  void check_slow(Process* self, ChannelBase& channel, bool writer_side);
  ProcessId id_ = 0;
  std::string name_;
};

}  // namespace detail

template <class T>
class Writer {
 public:
  Writer() = default;
  explicit Writer(std::shared_ptr<Channel<T>> channel) : channel_(std::move(channel)) {}
  Writer(Writer&& other) noexcept : channel_(std::move(other.channel_)) { forget_user(other); }
  Writer& operator=(Writer&& other) noexcept {
    if (this != &other) {
      release();
      channel_ = std::move(other.channel_);
      owner_ = std::move(other.owner_);
      forget_user(other);
    }
    return *this;
  }
  ~Writer() { release(); }

  // Blocks while the channel is full. Throws ChannelClosed after close(), BrokenChannel if the reader is gone.
  void write(T value) {
    owner_.check(*channel_, true);
    channel_->write(std::move(value));
  }
  // Ends the stream; the reader drains what was written, then sees end-of-stream. Idempotent.
  void close() noexcept {
    if (channel_) channel_->close();
  }
  explicit operator bool() const noexcept { return channel_ != nullptr; }
  const std::string& channel_name() const noexcept { return channel_->name(); }

 private:
  // The endpoint changes hands: the process that used it may no longer be the channel's writer.
  void forget_user(const Writer& from) noexcept {
    if (channel_ && from.owner_.bound()) channel_->record_endpoint_user(true, std::string());
  }
  void release() noexcept {
    if (channel_) channel_->close();
    channel_.reset();
  }
  std::shared_ptr<Channel<T>> channel_;
  detail::EndpointOwner owner_;
};

template <class T>
class Reader {
 public:
  Reader() = default;
  explicit Reader(std::shared_ptr<Channel<T>> channel) : channel_(std::move(channel)) {}
  Reader(Reader&& other) noexcept : channel_(std::move(other.channel_)) { forget_user(other); }
  Reader& operator=(Reader&& other) noexcept {
    if (this != &other) {
      release();
      channel_ = std::move(other.channel_);
      owner_ = std::move(other.owner_);
      forget_user(other);
    }
    return *this;
  }
  ~Reader() { release(); }

  // Blocks while the channel is empty and open; std::nullopt once it is closed and drained.
  std::optional<T> read() {
    owner_.check(*channel_, false);
    return channel_->read();
  }
  explicit operator bool() const noexcept { return channel_ != nullptr; }
  const std::string& channel_name() const noexcept { return channel_->name(); }

 private:
  void forget_user(const Reader& from) noexcept {
    if (channel_ && from.owner_.bound()) channel_->record_endpoint_user(false, std::string());
  }
  void release() noexcept {
    if (channel_) channel_->detach_reader();
    channel_.reset();
  }
  std::shared_ptr<Channel<T>> channel_;
  detail::EndpointOwner owner_;
};

}  // namespace kpn
