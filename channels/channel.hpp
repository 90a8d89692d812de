#pragma once
// channels/: bounded FIFO channels between processes, the only way KPN processes talk. A channel has one
// writer endpoint and one reader endpoint. write() blocks while the channel is full, read() while it is
// empty; close() (or destroying the writer) ends the stream, and the reader then drains what is left
// before read() returns std::nullopt.
//
//   auto [tx, rx] = kpn::channel<int>(16);   // or net.channel<int>(16) to list it in the run's report
//   tx.write(42);                            // in one process
//   while (auto v = rx.read()) use(*v);      // in another

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "channels/channel_base.hpp"
#include "channels/endpoints.hpp"
#include "channels/ring_buffer.hpp"
#include "channels/worker_trail.hpp"
#include "runtime/current.hpp"

namespace kpn {

template <class T>
class Channel final : public ChannelBase {
 public:
  Channel(std::string name, std::size_t capacity) : ChannelBase(std::move(name), capacity) {}

  // Blocks while full. Throws ChannelClosed after close(), BrokenChannel once the reader is gone.
  void write(T&& value) {
    lock_.lock();
    for (;;) {
      if (closed_) {
        lock_.unlock();
        throw ChannelClosed(name());
      }
      if (reader_gone_) {
        lock_.unlock();
        throw BrokenChannel(name());
      }
      if (buffer_.size() < capacity()) break;
      park(lock_, writer_waiting_, *this, WaitDirection::Write);
      lock_.lock();
    }
    buffer_.push_back(std::move(value));
    trail_.on_write(current_worker_index());
    messages_.store(messages_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    Process* reader = std::exchange(reader_waiting_, nullptr);
    lock_.unlock();
    if (reader != nullptr) unblock(reader);
  }

  // Blocks while empty and open. Returns std::nullopt once the channel is closed and drained.
  std::optional<T> read() {
    lock_.lock();
    while (buffer_.empty()) {
      if (closed_) {
        lock_.unlock();
        return std::nullopt;
      }
      park(lock_, reader_waiting_, *this, WaitDirection::Read);
      lock_.lock();
    }
    std::optional<T> value(buffer_.pop_front());
    if (trail_.on_read(current_worker_index())) ++cross_worker_messages_;
    Process* writer = std::exchange(writer_waiting_, nullptr);
    lock_.unlock();
    if (writer != nullptr) unblock(writer);
    return value;
  }

 private:
  std::size_t size_locked() const noexcept override { return buffer_.size(); }

  RingBuffer<T> buffer_;  // guarded by lock_
  WorkerTrail trail_;     // guarded by lock_; one entry per message of buffer_, run-length encoded
};

namespace detail {
// "channel-<n>", n counting channels created by this program.
std::string next_channel_name();
// Lists the channel in the report of the run the calling process belongs to (no-op outside a process).
void register_with_current_run(std::shared_ptr<ChannelView> channel);
}  // namespace detail

// Creates a channel of `capacity` (>= 1) messages. Called from a running process, the channel appears in
// that run's report. `name` defaults to "channel-<n>".
template <class T>
std::pair<Writer<T>, Reader<T>> channel(std::size_t capacity, std::string name = {}) {
  if (name.empty()) name = detail::next_channel_name();
  auto ch = std::make_shared<Channel<T>>(std::move(name), capacity);
  detail::register_with_current_run(ch);
  return {Writer<T>(ch), Reader<T>(ch)};
}

}  // namespace kpn
