#pragma once
// What a channel operation with a deadline reports (Reader::try_read / read_for / read_until,
// Writer::try_write / write_for / write_until, endpoints.hpp). A timeout is a status of its own, never
// confused with the end of the stream, and never an exception: a process that waits with a deadline means
// to do something else when it passes.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>

namespace kpn {

// Ok: a message was read. Timeout: nothing arrived before the deadline (for try_read: nothing was there).
// Closed: the writer ended the stream and every message has been read.
enum class ReadStatus : std::uint8_t { Ok, Timeout, Closed };

// Ok: the message is in the channel. Timeout: the channel stayed full until the deadline (for try_write:
// it was full); the message was not consumed. A closed or broken channel throws, as write() does.
enum class WriteStatus : std::uint8_t { Ok, Timeout };

// A message or the reason there is none. Tests true when it holds a message:
//   if (auto r = rx.read_for(10ms)) use(*r); else if (r.timed_out()) tick(); else break;  // closed
template <class T>
class ReadResult {
 public:
  explicit ReadResult(T&& value) : value_(std::move(value)), status_(ReadStatus::Ok) {}
  static ReadResult timeout_result() { return ReadResult(ReadStatus::Timeout); }
  static ReadResult end_of_stream() { return ReadResult(ReadStatus::Closed); }

  ReadStatus status() const noexcept { return status_; }
  bool has_value() const noexcept { return status_ == ReadStatus::Ok; }
  explicit operator bool() const noexcept { return has_value(); }
  bool timed_out() const noexcept { return status_ == ReadStatus::Timeout; }
  bool closed() const noexcept { return status_ == ReadStatus::Closed; }

  // The message; std::logic_error when there is none (a timeout or the end of the stream).
  T& value() & {
    check();
    return *value_;
  }
  T&& value() && {
    check();
    return std::move(*value_);
  }
  // Unchecked, as std::optional's.
  T& operator*() & noexcept { return *value_; }
  T&& operator*() && noexcept { return std::move(*value_); }
  T* operator->() noexcept { return &*value_; }

 private:
  explicit ReadResult(ReadStatus s) : status_(s) {}
  void check() const {
    if (status_ == ReadStatus::Timeout) throw std::logic_error("ReadResult::value: the read timed out");
    if (status_ == ReadStatus::Closed) throw std::logic_error("ReadResult::value: the stream has ended");
  }

  std::optional<T> value_;
  ReadStatus status_;
};

namespace detail {
// The deadline of try_read / try_write: do not park, read no clock.
inline constexpr std::int64_t kNoWait = 0;
}  // namespace detail

}  // namespace kpn
