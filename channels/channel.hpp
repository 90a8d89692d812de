#pragma once
// channels/: bounded FIFO channels between processes, the only way KPN processes talk. A channel has one
// writer endpoint and one reader endpoint. write() blocks while the channel is full, read() while it is
// empty; close() (or destroying the writer) ends the stream, and the reader then drains what is left
// before read() returns std::nullopt.
//
//   auto [tx, rx] = kpn::channel<int>(16);   // or net.channel<int>(16) to list it in the run's report
//   tx.write(42);                            // in one process
//   while (auto v = rx.read()) use(*v);      // in another

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "channels/bounded_core.hpp"
#include "channels/endpoints.hpp"
#include "channels/errors.hpp"
#include "channels/ring_buffer.hpp"
#include "channels/typed_channel.hpp"
#include "runtime/channel_support.hpp"
#include "runtime/current.hpp"
#include "runtime/export.hpp"
#include "runtime/held_reads.hpp"
#include "runtime/steady_time.hpp"

namespace kpn {

// The bounded FIFO channel: at most capacity() messages wait in it (capacity grows only by Parks' rule).
//
// Direct hand-off (Go's send to a waiting receiver), where the run's policy allows it
// (Scheduler::direct_handoff; not the Nornir paper's ws-cur and ws-last). A reader that parks in read()
// leaves the address of a Handoff on its own stack in `handoff_`; a writer that finds the reader parked puts the value there
// instead of in the buffer, takes the reader out of its slot and readies it, and the reader returns the
// value without taking the lock again. Rules, all under core_.lock:
// - `handoff_` is written by the reader each time it parks in read() or read_until (its Handoff, or
//   nullptr from the timed read) and cleared when read() wakes without a value, and it is meaningful only
//   while core_.reader_waiting is set. Whoever else takes the reader out of its slot (close, the
//   teardown) leaves it behind; a writer never reaches the hand-off then (the channel is closed, or the
//   reader gone), and a reader parking in any other way (select) finds it null;
// - a parked reader means an empty buffer (bounded_core.hpp), so a handed value never overtakes one in the
//   buffer, and the writer that hands over never parks;
// - the reader's stack frame outlives the hand-off: the reader is parked (off its stack, its frame
//   intact) until the writer, having written the value, readies it; the wake-up publishes the value (the
//   policy's queue, then the switch), as it publishes everything else the waker did.
// A handed value has left the writer: the reader has consumed it (its read has returned, logically), so
// it does not count against the capacity; the writer may fill the buffer behind it.
//
// Reserved reads, under the same policies (runtime/held_reads.hpp has the rule that keeps them safe). A
// read that takes the lock and finds more than one message reserves those at the buffer's front, up to
// kMaxReserved, and the reads after it take them without the lock, one by one, in order. Their slots stay
// taken, counted in the buffer's size, until the reader takes the lock again (its reservation used up, or
// a timed read) or gives them back before it blocks anywhere; so the channel never holds more than its
// capacity, and a writer may find it full while the reader has already consumed part of it, never while
// the reader is blocked. The reader's process holds them (hold_reads), one channel's at a time. Only a
// ring at its full size is reserved from: it grows only when full and its capacity has grown, which an
// artificial deadlock does, once every reader involved has given back. A reader endpoint handed to another
// process, or destroyed, gives back first.
//
// Layout. A message that crosses workers moves every cache line its write and its read touch from one CPU
// to the other, so the fields both touch (the vtable pointer, the hand-off slot, the ring's indices, the
// lock, the waiter slots, the flags and counters) are the object's first 112 bytes, and the worker that
// wrote each message is kept in its ring slot, beside the value; the names and ids come last. A
// capacity-1 channel's ring is one slot. Not aligned to a line: a 64-byte alignment cost 64 bytes more
// per channel (6 MiB in a chain of 100,000 processes) and bought nothing measurable.
template <class T>
class Channel final : public TypedChannel<T> {
 public:
  Channel(std::string name, std::size_t capacity) : buffer_(capacity), core_(std::move(name), capacity) {}

  void write(T&& value) override {
    WakeList wake;  // outlives the lock: readies the reader once the lock is released
    std::unique_lock held(core_.lock);
    for (;;) {
      if (core_.closed) [[unlikely]] core_.throw_closed();
      if (core_.reader_gone) [[unlikely]] core_.throw_reader_gone();
      if (core_.reader_waiting != nullptr && handoff_ != nullptr) return hand_over(std::move(value), wake);
      if (buffer_.size() < core_.capacity()) break;
      park(held, core_.writer_waiting, *this, WaitDirection::Write);
    }
    buffer_.push_back(Stored{std::move(value), current_worker_index()});
    core_.count_message();
    wake.take(core_.reader_waiting);
  }

  std::optional<T> read() override {
    if (reserved_left_ != 0) return engaged_out_of_line(take_reserved());
    return read_locked();
  }

  // The timed forms share write's and read's structure; a wait that timed out looks at the channel once
  // more (a message that arrived as the timer fired is taken, not left for later), then reports Timeout.
  WriteStatus write_until(T& value, std::int64_t deadline_ns) override {
    WakeList wake;
    std::unique_lock held(core_.lock);
    bool expired = false;
    for (;;) {
      if (core_.closed) [[unlikely]] core_.throw_closed();
      if (core_.reader_gone) [[unlikely]] core_.throw_reader_gone();
      if (core_.reader_waiting != nullptr && handoff_ != nullptr) {
        hand_over(std::move(value), wake);
        return WriteStatus::Ok;
      }
      if (buffer_.size() < core_.capacity()) break;
      if (expired || deadline_ns == detail::kNoWait || deadline_ns <= steady_ns()) return WriteStatus::Timeout;
      expired = park_until(held, core_.writer_waiting, *this, WaitDirection::Write, deadline_ns);
    }
    buffer_.push_back(Stored{std::move(value), current_worker_index()});
    core_.count_message();
    wake.take(core_.reader_waiting);
    return WriteStatus::Ok;
  }

  ReadResult<T> read_until(std::int64_t deadline_ns) override {
    if (reserved_left_ != 0) return ReadResult<T>(take_reserved());
    WakeList wake;
    std::unique_lock held(core_.lock);
    if (reserved_ != 0) end_reservation(held, wake);
    bool expired = false;
    while (buffer_.empty()) {
      if (core_.closed) {
        unwind_if_requested();  // a cancelled reader unwinds instead
        return ReadResult<T>::end_of_stream();
      }
      if (expired || deadline_ns == detail::kNoWait || deadline_ns <= steady_ns()) return ReadResult<T>::timeout_result();
      handoff_ = nullptr;  // a timed wait takes its value from the buffer (the timer may race the writer)
      expired = park_until(held, core_.reader_waiting, *this, WaitDirection::Read, deadline_ns);
    }
    Stored taken(buffer_.pop_front());
    count_crossing(taken.worker);
    wake.take(core_.writer_waiting);
    return ReadResult<T>(std::move(taken.value));
  }

  SelectPoint select_point(bool writer_side) noexcept override {
    return {&core_.lock, writer_side ? &core_.writer_waiting : &core_.reader_waiting};
  }
  bool select_ready(bool writer_side) const noexcept override {
    if (writer_side) return buffer_.size() < core_.capacity() || core_.closed || core_.reader_gone;
    return !buffer_.empty() || core_.closed;
  }

  const std::string& name() const noexcept override { return core_.name(); }
  ChannelSnapshot snapshot() const override { return core_.snapshot([this] { return buffer_.size(); }); }
  void grow(std::size_t new_capacity) override { core_.grow(new_capacity); }
  std::size_t capacity() const noexcept override { return core_.capacity(); }
  std::uint64_t messages() const noexcept override { return core_.messages(); }
  void close() noexcept override { core_.close(); }
  void detach_reader() noexcept override {
    give_back_reads_of(*this);  // the endpoint goes with its process's reads, if it held some
    core_.detach_reader();
  }
  void give_back_reads() noexcept override {
    WakeList wake;  // outlives the lock
    std::lock_guard held(core_.lock);
    free_reserved(wake);
  }
  void set_endpoint_names(std::string writer, std::string reader) override {
    core_.set_endpoint_names(std::move(writer), std::move(reader));
  }
  void record_endpoint_user(bool writer_side, ProcessId id, const std::string& name) noexcept override {
    core_.record_endpoint_user(writer_side, id, name);
  }

 private:
  // read() past its reserved messages (out of line, so that taking a reserved one stays a few
  // instructions): a lock round that frees the slots of the reserved messages consumed, waits if the
  // channel is empty, and takes the next message, reserving those behind it where it may (the rules at
  // the top).
  [[gnu::noinline]] std::optional<T> read_locked() {
    WakeList wake;
    std::unique_lock held(core_.lock);
    if (reserved_ != 0) end_reservation(held, wake);
    if (buffer_.empty()) [[unlikely]] {
      std::optional<T> answer;
      if (wait_readable(held, answer)) return answer;
    }
    if (buffer_.size() > 1 && buffer_.slots() >= core_.capacity() && buffer_.slots() <= kMaxReservedRing &&
        current_run_hands_off() && hold_reads(*this)) {
      reserve();
      held.unlock();
      wake.wake_now();
      return engaged_out_of_line(take_reserved());
    }
    Stored taken(buffer_.pop_front());
    count_crossing(taken.worker);
    wake.take(core_.writer_waiting);
    held.unlock();
    wake.wake_now();
    return engaged_out_of_line(std::move(taken.value));
  }

  // Under core_.lock, on the reader, with more than one message in the buffer and the ring at its full
  // size: reserves the messages at its front, up to kMaxReserved, for read() to take without the lock.
  void reserve() noexcept {
    const std::size_t n = buffer_.size() < kMaxReserved ? buffer_.size() : kMaxReserved;
    reserved_ring_ = buffer_.slot_array();
    reserved_mask_ = static_cast<std::uint32_t>(buffer_.index_mask());
    reserved_next_ = static_cast<std::uint32_t>(buffer_.head_index());
    reserved_ = static_cast<std::uint32_t>(n);
    reserved_left_ = reserved_;
  }

  // On the reader, without the lock: the next reserved message (reserved_left_ > 0).
  T take_reserved() noexcept(std::is_nothrow_move_constructible_v<T>) {
    Stored& slot = reserved_ring_[reserved_next_];
    reserved_next_ = (reserved_next_ + 1) & reserved_mask_;
    --reserved_left_;
    return std::move(slot.value);
  }

  // Under core_.lock, on the reader: frees the slots of the reserved messages it consumed (those it did
  // not are ordinary messages again, at the front) and takes the writer out of its slot, which they may
  // have kept waiting. The consumed ones are counted as crossing here, not when reserved: those given back
  // unconsumed are read again, and would be counted twice.
  void free_reserved(WakeList& wake) noexcept {
    const std::size_t consumed = reserved_ - reserved_left_;
    for (std::size_t i = 0; i < consumed; ++i) {
      count_crossing(reserved_ring_[(buffer_.head_index() + i) & reserved_mask_].worker);
    }
    buffer_.drop_front(consumed);
    reserved_ = reserved_left_ = 0;
    wake.take(core_.writer_waiting);
  }

  // Under `held`, on the reader whose reservation ran out: ends it. A writer it kept waiting is readied at
  // once if the buffer is now empty, since the reader is about to park.
  void end_reservation(std::unique_lock<BusyWaitMutex>& held, WakeList& wake) noexcept {
    free_reserved(wake);
    drop_held_reads(*this);
    if (buffer_.empty() && !wake.empty()) {
      held.unlock();
      wake.wake_now();
      held.lock();
    }
  }

  // read()'s wait, out of line: the read of a non-empty channel stays small (inlined where it is called).
  // Parks until the buffer has a message (returns false, `held` locked again), or answers the read in
  // `answer` (returns true; `held` locked or not): a value handed over, or the end of the stream.
  [[gnu::noinline]] bool wait_readable(std::unique_lock<BusyWaitMutex>& held, std::optional<T>& answer) {
    Handoff handed;  // outlives every park below (the rules at the top)
    while (buffer_.empty()) {
      if (core_.closed) {
        unwind_if_requested();  // a cancelled reader unwinds instead
        return true;
      }
      handoff_ = current_run_hands_off() ? &handed : nullptr;  // Scheduler::direct_handoff
      BusyWaitMutex& lock = *held.release();
      try {
        park(lock, core_.reader_waiting, *this, WaitDirection::Read);  // returns with the lock released
      } catch (...) {
        // Cancelled (the process, or the whole run) after a writer had handed the value over: the read
        // completed before the cancellation, so the value is returned, not lost; the process unwinds at
        // its next blocking point or channel operation.
        if (!handed.value) throw;
        answer = take_handed(handed);
        return true;
      }
      if (handed.value) {
        answer = take_handed(handed);
        return true;
      }
      held = std::unique_lock<BusyWaitMutex>(lock);
      handoff_ = nullptr;  // woken without a value (closed): nothing may point at this frame any more
    }
    return false;
  }

  // An engaged optional, made so that GCC (12) returns it without a stall. Returned as `return value;`,
  // the optional goes through the stack and its engaged flag is written as a byte and read back as part
  // of an 8-byte register load: a failed store-to-load forwarding, about 5 % of a capacity-1 pipeline's
  // time on one worker. Default-constructed and then emplaced, the flag and its padding are written as one
  // 8-byte store, which forwards. read() calls it after releasing the lock and readying the writer, so that
  // nothing is left to keep the optional on the stack across a call.
  // Out of line, for read(): inlined there, GCC 12 builds the optional in the caller's frame and returns
  // it with one 16-byte load over two 8-byte stores, which do not forward (a quarter of a capacity-64
  // pipeline's time on one worker); called, it returns the two registers directly.
  [[gnu::noinline]] static std::optional<T> engaged_out_of_line(T&& value) { return engaged(std::move(value)); }
  static std::optional<T> engaged(T&& value) {
    std::optional<T> answer;
    answer.emplace(std::move(value));
    return answer;
  }

  // A buffered message and the worker that wrote it (-1: written outside the run's workers).
  struct Stored {
    T value;
    int worker;
  };

  // Under core_.lock, on taking a message from the buffer: messages written or read outside the workers
  // count as not crossing.
  void count_crossing(int written_on) noexcept {
    const int here = current_worker_index();
    if (written_on != here && written_on >= 0 && here >= 0) ++core_.cross_worker_messages;
  }

  struct Handoff {
    std::optional<T> value;
    int worker = -1;  // the writer's worker, for the cross-worker count
  };

  // Under core_.lock, with the reader parked in read() (the rules at the top).
  void hand_over(T&& value, WakeList& wake) {
    handoff_->value.emplace(std::move(value));
    handoff_->worker = current_worker_index();
    handoff_ = nullptr;
    core_.count_message();
    wake.take(core_.reader_waiting);
  }

  // On the reader, after its wake-up, without the lock. Written or read outside the workers does not
  // count as crossing (as WorkerTrail).
  std::optional<T> take_handed(Handoff& handed) {
    const int here = current_worker_index();
    if (handed.worker >= 0 && here >= 0 && handed.worker != here) {
      // The channel's one reader is the only writer of the count: a store of its own load, no locked
      // instruction (snapshots read it concurrently, hence the atomic).
      core_.cross_worker_handoffs.store(core_.cross_worker_handoffs.load(std::memory_order_relaxed) + 1,
                                        std::memory_order_relaxed);
    }
    return std::move(handed.value);
  }

  // In this order (the layout above).
  Handoff* handoff_ = nullptr;  // guarded by core_.lock; see the rules at the top
  RingBuffer<Stored> buffer_;   // guarded by core_.lock
  BoundedCore core_;

  // Reserved reads (the rules at the top), the reader's alone, after the fields the writer touches, so
  // that taking a reserved message writes no line the writer reads. reserved_ is set and cleared under
  // core_.lock; the others are read and written by the reader without it while reserved_left_ > 0.
  // The ring's indices fit in 32 bits (24 bytes for the five fields, not 32: 16 a channel with
  // make_shared's block, 1.5 MiB in a chain of 100,000): only a ring of at most kMaxReservedRing slots is
  // reserved from.
  static constexpr std::size_t kMaxReserved = 32;
  static constexpr std::size_t kMaxReservedRing = std::size_t{1} << 32;
  Stored* reserved_ring_ = nullptr;
  std::uint32_t reserved_mask_ = 0;
  std::uint32_t reserved_next_ = 0;  // ring index of the next reserved message
  std::uint32_t reserved_ = 0;       // slots at the buffer's front that the reader reserved
  std::uint32_t reserved_left_ = 0;  // of those, not yet taken
};

namespace detail {
// "channel-<n>", n counting channels created by this program.
KPN_EXPORT std::string next_channel_name();
}  // namespace detail

// Creates a channel of `capacity` (>= 1) messages. Called from a running process, the channel appears in
// that run's report. `name` defaults to "channel-<n>".
template <class T>
std::pair<Writer<T>, Reader<T>> channel(std::size_t capacity, std::string name = {}) {
  if (name.empty()) name = detail::next_channel_name();
  auto ch = std::make_shared<Channel<T>>(std::move(name), capacity);
  register_with_current_run(ch);
  return {Writer<T>(ch), Reader<T>(ch)};
}

}  // namespace kpn
