#pragma once
// The two ends of a channel whose writer and reader are on different ranks, and the agent process beside
// each. On the writer's rank the writer writes into an Outbox; a sender agent moves what it holds to the
// communication thread. On the reader's rank a receiver agent puts what arrives into an Inbox, which the
// reader reads; each read returns a credit to the writer's rank.
//
// Exact capacity. Let C be the channel's capacity. The Outbox counts as occupied both the messages not
// yet sent (`unsent_`) and those sent but not yet consumed by the reader (`unacked_`), and a write waits
// while unsent + unacked >= C. unacked_ grows by the messages the sender takes and shrinks only by the
// credits the reader's rank returns, one per message its reader has read (InboxChannel::read). So at any
// time, written - consumed <= unsent + unacked <= C: the writer is never more than C messages ahead of
// the reader, and it blocks exactly when C messages are unconsumed, as on one machine (a credit in flight
// only delays the writer's wake-up; it never lets it run further ahead). The Inbox never holds more than
// the writer's window, so the receiver never waits on it (deposit() does not block).
//
// Termination. The writer closing its end (or ending) closes the Outbox; the sender sends what is left,
// then EOS, and ends. The receiver puts the last batch in the Inbox at EOS, closes it and ends: each agent
// ends exactly when its channel's stream does. A reader that goes away (its endpoint destroyed) sends
// BROKEN; the sender then breaks the Outbox, so the writer's next write throws BrokenChannel as on one
// machine, the writer ends, and the stream closes as above.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "channels/bounded_core.hpp"
#include "channels/errors.hpp"
#include "channels/ring_buffer.hpp"
#include "channels/typed_channel.hpp"
#include "distributed/comm.hpp"
#include "distributed/link.hpp"
#include "distributed/wire.hpp"
#include "runtime/blocking.hpp"
#include "runtime/blocking_call.hpp"
#include "runtime/steady_time.hpp"

namespace kpn::distributed {

// How long an agent waits in one blocking call before looking again; only a stopping network needs the
// look (a notify ends the wait at once otherwise).
inline constexpr std::chrono::milliseconds kAgentWait{20};
// At most this many messages in one MPI message (the window C bounds a batch too).
inline constexpr std::size_t kMaxBatch = 4096;

template <class T>
class OutboxChannel final : public TypedChannel<T> {
 public:
  OutboxChannel(std::string name, std::size_t capacity, OutLink& link) : core_(std::move(name), capacity), link_(link) {}

  void write(T&& value) override {
    std::unique_lock held(core_.lock);
    bool stalled = false;
    for (;;) {
      if (core_.closed) throw ChannelClosed(core_.name());
      if (core_.reader_gone) throw BrokenChannel(core_.name());
      if (unsent_.size() + unacked_ < core_.capacity()) break;
      if (!stalled) credit_stalls_.fetch_add(1, std::memory_order_relaxed);
      stalled = true;
      park(held, core_.writer_waiting, *this, WaitDirection::Write);
    }
    unsent_.push_back(std::move(value));
    core_.count_message();
    held.unlock();
    link_.signal.notify();
  }

  WriteStatus write_until(T& value, std::int64_t deadline_ns) override {
    std::unique_lock held(core_.lock);
    bool expired = false;
    bool stalled = false;
    for (;;) {
      if (core_.closed) throw ChannelClosed(core_.name());
      if (core_.reader_gone) throw BrokenChannel(core_.name());
      if (unsent_.size() + unacked_ < core_.capacity()) break;
      if (expired || deadline_ns == kpn::detail::kNoWait || deadline_ns <= steady_ns()) return WriteStatus::Timeout;
      if (!stalled) credit_stalls_.fetch_add(1, std::memory_order_relaxed);
      stalled = true;
      expired = park_until(held, core_.writer_waiting, *this, WaitDirection::Write, deadline_ns);
    }
    unsent_.push_back(std::move(value));
    core_.count_message();
    held.unlock();
    link_.signal.notify();
    return WriteStatus::Ok;
  }

  // The reader is on another rank: nothing reads this end here.
  std::optional<T> read() override { throw std::logic_error("channel '" + core_.name() + "': its reader is on another rank"); }
  ReadResult<T> read_until(std::int64_t) override {
    (void)read();
    return ReadResult<T>::end_of_stream();
  }

  // The sender agent's. Moves up to `max` unsent messages into `out` (they stay counted as occupying the
  // window until their credits come back). Returns true once the stream is over: closed (or broken) and
  // nothing is left to send.
  bool take_unsent(std::vector<T>& out, std::size_t max) {
    std::lock_guard g(core_.lock);
    while (!unsent_.empty() && out.size() < max) {
      out.push_back(std::move(unsent_.front()));
      unsent_.pop_front();
      ++unacked_;
    }
    return (core_.closed || core_.reader_gone) && unsent_.empty();
  }
  // The reader consumed `n` more messages: the writer may write n more.
  void acknowledge(std::uint64_t n) {
    WakeList wake;
    std::lock_guard g(core_.lock);
    unacked_ -= std::min<std::uint64_t>(n, unacked_);
    wake.take(core_.writer_waiting);
  }
  // The reader is gone: what was not sent never will be, and the writer's next write throws.
  void break_remote() {
    {
      std::lock_guard g(core_.lock);
      unsent_.clear();
    }
    core_.detach_reader();  // wakes a waiting writer, which then throws BrokenChannel
  }
  std::uint64_t credit_stalls() const noexcept { return credit_stalls_.load(std::memory_order_relaxed); }

  const std::string& name() const noexcept override { return core_.name(); }
  ChannelSnapshot snapshot() const override { return core_.snapshot([this] { return unsent_.size() + unacked_; }); }
  // Parks' growth widens the writer's window; the Inbox accepts whatever the window lets through.
  void grow(std::size_t new_capacity) override { core_.grow(new_capacity); }
  std::size_t capacity() const noexcept override { return core_.capacity(); }
  std::uint64_t messages() const noexcept override { return core_.messages(); }
  void close() noexcept override {
    core_.close();
    try {
      link_.signal.notify();
    } catch (...) {  // std::mutex::lock failing: the agent still sees the close within kAgentWait
    }
  }
  void detach_reader() noexcept override { core_.detach_reader(); }
  void set_endpoint_names(std::string writer, std::string reader) override {
    core_.set_endpoint_names(std::move(writer), std::move(reader));
  }
  void record_endpoint_user(bool writer_side, ProcessId id, const std::string& name) noexcept override {
    core_.record_endpoint_user(writer_side, id, name);
  }

 private:
  BoundedCore core_;
  OutLink& link_;
  std::deque<T> unsent_;             // guarded by core_.lock
  std::uint64_t unacked_ = 0;        // guarded by core_.lock
  std::atomic<std::uint64_t> credit_stalls_{0};  // writes that found the window full
};

template <class T>
class InboxChannel final : public TypedChannel<T> {
 public:
  InboxChannel(std::string name, std::size_t capacity, InLink& link, Comm& comm)
      : core_(std::move(name), capacity), link_(link), comm_(comm) {}

  std::optional<T> read() override {
    std::optional<T> value;
    {
      WakeList wake;
      std::unique_lock held(core_.lock);
      while (buffer_.empty()) {
        if (core_.closed) return std::nullopt;
        park(held, core_.reader_waiting, *this, WaitDirection::Read);
      }
      value.emplace(buffer_.pop_front());
    }
    comm_.post_credits(link_, 1);
    return value;
  }

  ReadResult<T> read_until(std::int64_t deadline_ns) override {
    std::optional<T> value;
    {
      std::unique_lock held(core_.lock);
      bool expired = false;
      while (buffer_.empty()) {
        if (core_.closed) return ReadResult<T>::end_of_stream();
        if (expired || deadline_ns == kpn::detail::kNoWait || deadline_ns <= steady_ns()) return ReadResult<T>::timeout_result();
        expired = park_until(held, core_.reader_waiting, *this, WaitDirection::Read, deadline_ns);
      }
      value.emplace(buffer_.pop_front());
    }
    comm_.post_credits(link_, 1);
    return ReadResult<T>(std::move(*value));
  }

  // The writer is on another rank: nothing writes this end here.
  void write(T&&) override { throw std::logic_error("channel '" + core_.name() + "': its writer is on another rank"); }
  WriteStatus write_until(T& value, std::int64_t) override {
    write(std::move(value));
    return WriteStatus::Ok;
  }

  // The receiver agent's: never blocks (the writer's window bounds what arrives, see above). Dropped if
  // the reader is gone (BROKEN is on its way to the writer).
  void deposit(std::vector<T>& values) {
    WakeList wake;
    std::lock_guard g(core_.lock);
    if (core_.reader_gone) return;
    for (T& v : values) {
      buffer_.push_back(std::move(v));
      core_.count_message();
    }
    wake.take(core_.reader_waiting);
  }

  const std::string& name() const noexcept override { return core_.name(); }
  ChannelSnapshot snapshot() const override { return core_.snapshot([this] { return buffer_.size(); }); }
  void grow(std::size_t new_capacity) override { core_.grow(new_capacity); }
  std::size_t capacity() const noexcept override { return core_.capacity(); }
  std::uint64_t messages() const noexcept override { return core_.messages(); }
  void close() noexcept override { core_.close(); }
  void detach_reader() noexcept override {
    bool closed = false;
    {
      std::lock_guard g(core_.lock);
      closed = core_.closed;
    }
    core_.detach_reader();
    if (closed) return;  // the stream is over: the writer has nothing left to break
    try {
      comm_.post_broken(link_);
    } catch (...) {  // out of memory: the writer then keeps writing into a reader that drops it
    }
  }
  void set_endpoint_names(std::string writer, std::string reader) override {
    core_.set_endpoint_names(std::move(writer), std::move(reader));
  }
  void record_endpoint_user(bool writer_side, ProcessId id, const std::string& name) noexcept override {
    core_.record_endpoint_user(writer_side, id, name);
  }

 private:
  BoundedCore core_;
  InLink& link_;
  Comm& comm_;
  RingBuffer<T> buffer_;  // guarded by core_.lock
};

// The sender agent's body: forwards the Outbox's messages in batches, applies credits and BROKEN, and
// sends EOS once the stream is over.
template <class T>
void run_sender(OutboxChannel<T>& out, OutLink& link, Comm& comm) {
  std::vector<T> batch;
  for (;;) {
    std::uint64_t credits = 0;
    bool broken = false;
    {
      std::lock_guard g(link.signal.mutex);
      credits = std::exchange(link.credits, 0);
      broken = std::exchange(link.broken, false);  // applied once: the Outbox stays broken
    }
    if (broken) out.break_remote();
    if (credits != 0) out.acknowledge(credits);
    batch.clear();
    const bool over = out.take_unsent(batch, kMaxBatch);
    if (!batch.empty()) {
      std::string payload;
      for (const T& v : batch) Wire<T>::put(payload, v);
      comm.post_data(link, static_cast<std::uint32_t>(batch.size()), std::move(payload));
    }
    if (over) {
      comm.post_eos(link);
      link.signal.retire();
      return;
    }
    if (batch.empty()) kpn::blocking([&link] { link.signal.wait(kAgentWait); });
  }
}

// The receiver agent's body: decodes what arrives into the Inbox, and closes it at EOS.
template <class T>
void run_receiver(InboxChannel<T>& in, InLink& link) {
  std::vector<T> values;
  for (;;) {
    std::deque<std::string> batches;
    bool eos = false;
    {
      std::lock_guard g(link.signal.mutex);
      batches.swap(link.batches);
      eos = std::exchange(link.eos, false);  // in hand now (watch.hpp: no work left in the link)
    }
    for (const std::string& b : batches) {
      values.clear();
      const char* p = b.data();
      const char* end = p + b.size();
      while (p != end) values.push_back(Wire<T>::get(p, end));
      in.deposit(values);
    }
    if (eos) {
      in.close();
      link.signal.retire();
      return;
    }
    if (batches.empty()) kpn::blocking([&link] { link.signal.wait(kAgentWait); });
  }
}

}  // namespace kpn::distributed
