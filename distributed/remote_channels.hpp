#pragma once
// The two ends of a channel whose writer and reader are on different ranks. On the writer's rank the
// writer writes into an Outbox, from which the communication thread takes what is unsent; on the reader's
// rank the thread puts what arrives into an Inbox, which the reader reads; each read returns a credit to
// the writer's rank (link.hpp, comm.hpp). No process stands between an end and the thread.
//
// Exact capacity. Let C be the channel's capacity. The Outbox counts as occupied both the messages not
// yet sent (`unsent_`) and those sent but not yet consumed by the reader (`unacked_`), and a write waits
// while unsent + unacked >= C. unacked_ grows by the messages the thread takes and shrinks only by the
// credits the reader's rank returns, one per message its reader has read (InboxChannel::read). So at any
// time, written - consumed <= unsent + unacked <= C: the writer is never more than C messages ahead of
// the reader, and it blocks exactly when C messages are unconsumed, as on one machine (a credit in flight
// only delays the writer's wake-up; it never lets it run further ahead). The Inbox never holds more than
// the writer's window, so delivering into it never waits.
//
// Termination. The writer closing its end (or ending) closes the Outbox; the thread sends what is left,
// then EOS. At EOS the Inbox closes: the reader reads what is left, then the end of the stream. A reader
// that goes away (its endpoint destroyed) sends BROKEN; the Outbox then breaks, so the writer's next write
// throws BrokenChannel as on one machine, the writer ends, and the stream closes as above.
//
// Activity and latency. A rank whose processes all wait on Inboxes is not finished and not deadlocked by
// itself: a message may still come. One process per rank, the link poller (run_link_poller), sleeps in
// short timed waits until every link's stream is over, and so keeps its runtime active
// (runtime/quiescence.hpp) as long as a message may still come or still have to go; the deadlock check
// across ranks (watch.hpp) is what finds a deadlock that spans ranks. Each time it wakes it also does the
// communication thread's work if that thread has not had a turn for a while (Comm::assist): the thread
// shares the rank's CPUs with the workers, and the kernel lets it run only at the end of a time slice
// while they compute, so without the poller a message would wait milliseconds to be sent or delivered.

#include <algorithm>
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
#include "runtime/channel_support.hpp"
#include "runtime/process_options.hpp"
#include "runtime/steady_time.hpp"
#include "runtime/timers.hpp"

namespace kpn::distributed {


template <class T>
class OutboxChannel final : public TypedChannel<T>, public OutSource {
 public:
  OutboxChannel(std::string name, std::size_t capacity, OutLink& link, Comm& comm)
      : core_(std::move(name), capacity), link_(link), comm_(comm) {}

  void write(T&& value) override {
    std::unique_lock held(core_.lock);
    bool stalled = false;
    for (;;) {
      if (core_.closed) [[unlikely]] core_.throw_closed();
      if (core_.reader_gone) [[unlikely]] core_.throw_reader_gone();
      if (unsent_.size() + unacked_ < core_.capacity()) break;
      if (!stalled) credit_stalls_.fetch_add(1, std::memory_order_relaxed);
      stalled = true;
      park(held, core_.writer_waiting, *this, WaitDirection::Write);
    }
    unsent_.push_back(std::move(value));
    core_.count_message();
    held.unlock();
    comm_.post_ready(link_);
  }

  WriteStatus write_until(T& value, std::int64_t deadline_ns) override {
    std::unique_lock held(core_.lock);
    bool expired = false;
    bool stalled = false;
    for (;;) {
      if (core_.closed) [[unlikely]] core_.throw_closed();
      if (core_.reader_gone) [[unlikely]] core_.throw_reader_gone();
      if (unsent_.size() + unacked_ < core_.capacity()) break;
      if (expired || deadline_ns == kpn::detail::kNoWait || deadline_ns <= steady_ns()) return WriteStatus::Timeout;
      if (!stalled) credit_stalls_.fetch_add(1, std::memory_order_relaxed);
      stalled = true;
      expired = park_until(held, core_.writer_waiting, *this, WaitDirection::Write, deadline_ns);
    }
    unsent_.push_back(std::move(value));
    core_.count_message();
    held.unlock();
    comm_.post_ready(link_);
    return WriteStatus::Ok;
  }

  // The reader is on another rank: nothing reads this end here.
  std::optional<T> read() override { throw std::logic_error("channel '" + core_.name() + "': its reader is on another rank"); }
  ReadResult<T> read_until(std::int64_t) override {
    (void)read();
    return ReadResult<T>::end_of_stream();
  }

  // OutSource, the communication thread's. Encoding happens outside the lock, on values the thread owns.
  std::uint32_t take_unsent(std::string& payload, std::size_t max) override {
    taken_.clear();
    {
      std::lock_guard g(core_.lock);
      while (!unsent_.empty() && taken_.size() < max) {
        taken_.push_back(std::move(unsent_.front()));
        unsent_.pop_front();
        ++unacked_;
      }
    }
    for (const T& v : taken_) Wire<T>::put(payload, v);
    return static_cast<std::uint32_t>(taken_.size());
  }
  bool over() override {
    std::lock_guard g(core_.lock);
    return (core_.closed || core_.reader_gone) && unsent_.empty();
  }
  void acknowledge(std::uint64_t n, ForeignWakeList& wakes) override {
    std::lock_guard g(core_.lock);
    unacked_ -= std::min<std::uint64_t>(n, unacked_);
    wakes.take(core_.writer_waiting);
  }
  void break_remote(ForeignWakeList& wakes) override {
    std::lock_guard g(core_.lock);
    unsent_.clear();
    core_.reader_gone = true;
    wakes.take(core_.writer_waiting);  // it then throws BrokenChannel
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
      comm_.post_ready(link_);  // the thread sends what is left, then EOS
    } catch (...) {  // std::mutex::lock failing: nothing to be done; the poller then runs until the network is interrupted
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
  Comm& comm_;
  std::deque<T> unsent_;             // guarded by core_.lock
  std::uint64_t unacked_ = 0;        // guarded by core_.lock
  std::vector<T> taken_;             // the communication thread's: a batch on its way to the wire
  std::atomic<std::uint64_t> credit_stalls_{0};  // writes that found the window full
};

template <class T>
class InboxChannel final : public TypedChannel<T>, public InSink {
 public:
  InboxChannel(std::string name, std::size_t capacity, InLink& link, Comm& comm)
      : core_(std::move(name), capacity), link_(link), comm_(comm) {}

  std::optional<T> read() override {
    std::optional<T> value;
    {
      std::unique_lock held(core_.lock);
      while (buffer_.empty()) {
        if (core_.closed) {
          unwind_if_requested();  // a cancelled reader unwinds instead
          return std::nullopt;
        }
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
        if (core_.closed) {
          unwind_if_requested();  // a cancelled reader unwinds instead
          return ReadResult<T>::end_of_stream();
        }
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

  // InSink, the communication thread's. Decoded before the lock is taken; dropped if the reader is gone
  // (BROKEN is on its way to the writer).
  void deliver(const char* p, const char* end, ForeignWakeList& wakes) override {
    arrived_.clear();
    while (p != end) arrived_.push_back(Wire<T>::get(p, end));
    std::lock_guard g(core_.lock);
    if (core_.reader_gone) return;
    for (T& v : arrived_) {
      buffer_.push_back(std::move(v));
      core_.count_message();
    }
    wakes.take(core_.reader_waiting);
  }
  void end_of_stream(ForeignWakeList& wakes) override {
    std::lock_guard g(core_.lock);
    core_.closed = true;
    wakes.take(core_.reader_waiting);
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
  RingBuffer<T> buffer_;     // guarded by core_.lock
  std::vector<T> arrived_;   // the communication thread's: a batch being decoded
};

// Makes the writer's end of a cross-rank channel and attaches it to its link (before the thread starts).
template <class T>
std::shared_ptr<OutboxChannel<T>> make_outbox(std::string name, std::size_t capacity, OutLink& link, Comm& comm) {
  auto ch = std::make_shared<OutboxChannel<T>>(std::move(name), capacity, link, comm);
  link.source = ch.get();
  link.keep = ch;
  return ch;
}

// Makes the reader's end of a cross-rank channel and attaches it to its link (before the thread starts).
template <class T>
std::shared_ptr<InboxChannel<T>> make_inbox(std::string name, std::size_t capacity, InLink& link, Comm& comm) {
  auto ch = std::make_shared<InboxChannel<T>>(std::move(name), capacity, link, comm);
  link.sink = ch.get();
  link.keep = ch;
  return ch;
}

// The body of a rank's link poller (above): while a stream across ranks is open, it sleeps and, each time
// it wakes, does the communication thread's work if nobody has for as long as it slept (Comm::assist).
// How long it sleeps follows what its worker does. A wake-up that comes late (by kLateWake: the worker was
// running a process when the deadline passed) or that found the thread starved of its turn (Moved) means
// the worker computes, and the thread waits for the kernel's time slice: the poller then sleeps kPollMin,
// so that it runs between every two processes. A wake-up on time means the worker had nothing to run, so
// the thread has the CPU: the poller backs off, doubling up to kPollMax, and costs an idle rank a hundred
// wake-ups a second (each also costs a message's latency there: a guest's halt polling, for one, stops
// polling after long idle spells). A stopping network unwinds it in its sleep.
inline constexpr std::chrono::microseconds kPollMin{20};
inline constexpr std::chrono::microseconds kPollMax{10000};
inline constexpr std::chrono::microseconds kLateWake{50};

inline void run_link_poller(Comm& comm) {
  using clock = std::chrono::steady_clock;
  std::chrono::microseconds period = kPollMin;
  bool busy = true;
  while (!comm.links_over()) {
    const bool moved = comm.assist(period) == Comm::Assist::Moved;
    period = busy || moved ? kPollMin : std::min(period * 2, kPollMax);
    const clock::time_point due = clock::now() + period;
    kpn::sleep_until(due);
    busy = clock::now() - due > kLateWake;
  }
}

// What a link poller needs beside a process's defaults: MPI's calls run on its stack.
inline ProcessOptions link_poller_options() {
  ProcessOptions o;
  o.stack_size = std::size_t{512} << 10;
  return o;
}

}  // namespace kpn::distributed
