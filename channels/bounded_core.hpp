#pragma once
// The untyped part of the bounded FIFO channel (channel.hpp): its lock, its waiter slots, its end-of-stream
// and broken flags, its counters and the records of who is at each end. The typed part holds the buffer.
//
// Invariants, all guarded by `lock`:
// - at most one process waits to read (`reader_waiting`) and at most one to write (`writer_waiting`): a
//   channel has one reader and one writer;
// - a reader waits only while the channel is empty and open, a writer only while it is full and the reader
//   is still there;
// - whoever changes the condition a waiter waits for takes the waiter out of its slot under the lock with a
//   WakeList, which readies it after the lock is released (runtime/blocking.hpp has the handshake).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "runtime/blocking.hpp"
#include "runtime/busy_wait_mutex.hpp"
#include "runtime/channel_view.hpp"
#include "runtime/export.hpp"

namespace kpn {

class KPN_EXPORT BoundedCore {
 public:
  BoundedCore(std::string name, std::size_t capacity);

  const std::string& name() const noexcept { return name_; }
  std::size_t capacity() const noexcept { return capacity_.load(std::memory_order_relaxed); }
  std::uint64_t messages() const noexcept { return messages_.load(std::memory_order_relaxed); }

  // The channel's operations that do not touch the buffer. `size` is the buffer's length, read under the
  // lock by the caller-supplied function.
  template <class SizeFn>
  ChannelSnapshot snapshot(SizeFn size) const {
    std::lock_guard g(lock);
    ChannelSnapshot s = snapshot_locked();
    s.size = size();
    return s;
  }
  void close() noexcept;
  void detach_reader() noexcept;
  void grow(std::size_t new_capacity);
  void set_endpoint_names(std::string writer, std::string reader);
  void record_endpoint_user(bool writer_side, ProcessId id, const std::string& name) noexcept;

  // For the typed part, under `lock`: a write that finds the channel closed or its reader gone. A process
  // that must unwind (it was cancelled, or the run stops) unwinds instead (unwind_if_requested,
  // runtime/channel_support.hpp, which a read that finds the channel empty and closed also asks).
  [[noreturn]] void throw_closed() const;
  [[noreturn]] void throw_reader_gone() const;
  void count_message() noexcept { messages_.store(messages_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

  // The fields every operation touches come first, in the order of their use, so that with the typed
  // part's hot fields (channel.hpp) they fill the channel's first two cache lines: a message that crosses
  // workers moves those lines, and only those, from one CPU to the other. The names and ids, read only
  // by reports and error messages, come last.
  mutable BusyWaitMutex lock;
  bool closed = false;                // guarded by lock
  bool reader_gone = false;           // guarded by lock
  Process* reader_waiting = nullptr;  // guarded by lock
  Process* writer_waiting = nullptr;  // guarded by lock

 private:
  // Changed under lock only; atomic so that reports may read them without it.
  std::atomic<std::size_t> capacity_;
  std::atomic<std::uint64_t> messages_{0};

 public:
  std::uint64_t cross_worker_messages = 0;  // guarded by lock; read on another worker than written
  // Messages handed straight to a parked reader (channel.hpp) that it took on another worker than the
  // writer's: counted by the reader after its wake-up, without the lock (the reader alone writes it; reports
  // read it concurrently), hence atomic.
  std::atomic<std::uint64_t> cross_worker_handoffs{0};

 private:
  ChannelSnapshot snapshot_locked() const;

  const std::string name_;
  // Guarded by lock.
  ProcessId writer_id_ = 0;
  ProcessId reader_id_ = 0;
  std::string writer_name_;
  std::string reader_name_;
};

}  // namespace kpn
