#pragma once
// The two ends of a channel. Each is move-only, so a channel has exactly one of each; an endpoint is bound
// to the first process that uses it, and a use by any other process throws ChannelMisuse (moving an
// endpoint, to hand it to a new process, clears the binding). Destroying the writer closes the channel;
// destroying the reader makes further writes throw BrokenChannel.
//
// Deadlines. try_read / try_write never park; read_for / write_for wait at most a duration (negative:
// std::invalid_argument), read_until / write_until until a steady_clock time point. Each reports a timeout
// as a status (timed_result.hpp), distinct from the end of the stream. A process that branches on a
// timeout depends on timing, so its network is no longer a Kahn network (docs/api.md).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "channels/channel_base.hpp"
#include "channels/errors.hpp"
#include "channels/timed_result.hpp"
#include "channels/typed_channel.hpp"
#include "runtime/channel_support.hpp"
#include "runtime/export.hpp"
#include "runtime/held_reads.hpp"
#include "runtime/timers.hpp"

namespace kpn {

// One end of a channel that a select waits on (select.hpp): made by kpn::nondeterministic::readable and
// writable, or an endpoint's select_case().
struct SelectCase {
  ChannelBase* channel = nullptr;
  bool writer_side = false;
};

namespace detail {

// The binding of an endpoint to the one process allowed to use it.
class KPN_EXPORT EndpointOwner {
 public:
  EndpointOwner() = default;
  EndpointOwner(EndpointOwner&&) noexcept {}  // a moved endpoint is unbound
  EndpointOwner& operator=(EndpointOwner&&) noexcept {
    id_.store(0, std::memory_order_relaxed);
    return *this;
  }
  bool bound() const noexcept { return id_.load(std::memory_order_relaxed) != 0; }
  // Binds on first use; throws ChannelMisuse if the caller is not a process or not the bound one. While
  // the caller's run is stopping it unwinds the caller instead (detail::Cancelled), unless an exception
  // is already unwinding it (a destructor may still use a channel then).
  void check(ChannelBase& channel, bool writer_side) {
    const ProcessId self = current_process_id_unless_stopping();
    if (self != 0 && self == id_.load(std::memory_order_relaxed)) return;
    check_slow(channel, writer_side);
  }

 private:
  void check_slow(ChannelBase& channel, bool writer_side);
  // Atomic only so that a misuse (two processes sharing one endpoint at once) is reported, not a data
  // race; the owner is the only legitimate writer.
  std::atomic<ProcessId> id_{0};
  std::string name_;
};

// A default-constructed or moved-from endpoint has no channel.
[[noreturn]] KPN_EXPORT void throw_empty_endpoint(bool writer_side);

// What the two ends share: the channel, the binding to the one process that may use it, and the
// hand-over rules. `kWriter` says which end this is.
template <class T, bool kWriter>
class KPN_EXPORT Endpoint {
 public:
  Endpoint() = default;
  explicit Endpoint(std::shared_ptr<TypedChannel<T>> channel) : channel_(std::move(channel)) {}
  Endpoint(Endpoint&& other) noexcept : channel_(std::move(other.channel_)) { forget_user(other); }
  Endpoint& operator=(Endpoint&& other) noexcept {
    if (this != &other) {
      release();
      channel_ = std::move(other.channel_);
      owner_ = std::move(other.owner_);
      forget_user(other);
    }
    return *this;
  }
  ~Endpoint() { release(); }

  explicit operator bool() const noexcept { return channel_ != nullptr; }

  // This end as a case of kpn::nondeterministic::select (select.hpp), after the same checks as an
  // operation on it (the calling process must be the one that uses it).
  SelectCase select_case() { return SelectCase{&use(), kWriter}; }
  const std::string& channel_name() const noexcept { return channel_->name(); }

 protected:
  // The channel, after checking that the calling process may use this end.
  TypedChannel<T>& use() {
    if (!channel_) detail::throw_empty_endpoint(kWriter);
    owner_.check(*channel_, kWriter);
    return *channel_;
  }
  TypedChannel<T>* channel() const noexcept { return channel_.get(); }

 private:
  // The endpoint changes hands: the process that used it may no longer be the one at this end.
  // A reader's process gives back the reads it holds of the channel first (held_reads.hpp): the next
  // process to use this end must find the exact count.
  void forget_user(const Endpoint& from) noexcept {
    if (!channel_ || !from.owner_.bound()) return;
    if constexpr (!kWriter) give_back_reads_of(*channel_);
    channel_->record_endpoint_user(kWriter, 0, std::string());
  }
  // Letting go of the writer ends the stream; letting go of the reader breaks the channel.
  void release() noexcept {
    if (!channel_) return;
    if constexpr (kWriter) {
      channel_->close();
    } else {
      channel_->detach_reader();
    }
    channel_.reset();
  }

  std::shared_ptr<TypedChannel<T>> channel_;
  EndpointOwner owner_;
};

}  // namespace detail

template <class T>
class Writer : public detail::Endpoint<T, true> {
 public:
  using detail::Endpoint<T, true>::Endpoint;

  // Blocks while the channel is full. Throws ChannelClosed after close(), BrokenChannel if the reader is gone.
  void write(T value) { this->use().write(std::move(value)); }
  // Write unless the channel is full (try_write), or stays full past a deadline. On Timeout the value is
  // left as it was (the rvalue forms move from it only on Ok; an endpoint in it comes back unbound, as any
  // moved endpoint). Closed or broken channels throw, as write().
  WriteStatus try_write(T&& value) { return write_moved_until(value, detail::kNoWait); }
  WriteStatus try_write(const T& value) {
    T copy(value);
    return this->use().write_until(copy, detail::kNoWait);
  }
  template <class Rep, class Period>
  WriteStatus write_for(T&& value, std::chrono::duration<Rep, Period> d) {
    return write_moved_until(value, detail::deadline_after_ns(detail::checked_ns("Writer::write_for", d)));
  }
  template <class Rep, class Period>
  WriteStatus write_for(const T& value, std::chrono::duration<Rep, Period> d) {
    T copy(value);
    return this->use().write_until(copy, detail::deadline_after_ns(detail::checked_ns("Writer::write_for", d)));
  }
  template <class Duration>
  WriteStatus write_until(T&& value, std::chrono::time_point<std::chrono::steady_clock, Duration> t) {
    return write_moved_until(value, std::max<std::int64_t>(1, detail::steady_deadline_ns(t)));
  }
  template <class Duration>
  WriteStatus write_until(const T& value, std::chrono::time_point<std::chrono::steady_clock, Duration> t) {
    T copy(value);
    return this->use().write_until(copy, std::max<std::int64_t>(1, detail::steady_deadline_ns(t)));
  }
  // Ends the stream; the reader drains what was written, then sees end-of-stream. Idempotent.
  void close() noexcept {
    if (auto* c = this->channel()) c->close();
  }

 private:
  // The value leaves the caller's object before the channel's lock is taken, as write()'s by-value
  // parameter makes it do: moving an endpoint that a process has used hands it over, which takes that
  // endpoint's channel's lock (forget_user), and no channel lock may be taken while another is held. The
  // two could be taken in opposite orders by two processes, or be the same lock (a writer sent down its
  // own channel), and a process that finds a lock taken yields with the first one held. The value goes
  // back where it was unless it was written.
  WriteStatus write_moved_until(T& value, std::int64_t deadline_ns) {
    TypedChannel<T>& channel = this->use();  // before the move: `value` may hold this very endpoint
    T outside(std::move(value));
    WriteStatus status = WriteStatus::Timeout;
    try {
      status = channel.write_until(outside, deadline_ns);
    } catch (...) {
      put_back(value, outside);
      throw;
    }
    if (status != WriteStatus::Ok) put_back(value, outside);
    return status;
  }
  static void put_back(T& value, T& outside) {
    if constexpr (std::is_move_assignable_v<T>) {
      value = std::move(outside);
    } else {
      std::destroy_at(std::addressof(value));
      std::construct_at(std::addressof(value), std::move(outside));
    }
  }
};

template <class T>
class Reader : public detail::Endpoint<T, false> {
 public:
  using detail::Endpoint<T, false>::Endpoint;

  // Blocks while the channel is empty and open; std::nullopt once it is closed and drained.
  std::optional<T> read() { return this->use().read(); }
  // A message if one is there now; otherwise Timeout (nothing yet) or Closed (the stream has ended).
  ReadResult<T> try_read() { return this->use().read_until(detail::kNoWait); }
  // Waits at most `d` for a message: Ok, Timeout, or Closed once the stream has ended and been drained.
  template <class Rep, class Period>
  ReadResult<T> read_for(std::chrono::duration<Rep, Period> d) {
    const std::int64_t ns = detail::checked_ns("Reader::read_for", d);
    return this->use().read_until(detail::deadline_after_ns(ns));
  }
  template <class Duration>
  ReadResult<T> read_until(std::chrono::time_point<std::chrono::steady_clock, Duration> t) {
    return this->use().read_until(std::max<std::int64_t>(1, detail::steady_deadline_ns(t)));
  }
};

}  // namespace kpn
