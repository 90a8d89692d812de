#pragma once
// The untyped half of a channel: its lock, its waiters, its counters, and what tools may inspect.
//
// Invariants, all guarded by `lock_`:
// - at most one process waits to read (`reader_waiting_`) and at most one to write (`writer_waiting_`):
//   a channel has one reader and one writer;
// - a reader waits only while the channel is empty and open, a writer only while it is full and the reader
//   is still there;
// - whoever changes the condition a waiter waits for takes the waiter out of its slot under the lock and
//   unblocks it after releasing the lock (runtime/blocking.hpp has the handshake that makes this safe).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/blocking.hpp"
#include "runtime/busy_wait_mutex.hpp"
#include "runtime/channel_view.hpp"

namespace kpn {

class Process;

class ChannelBase : public ChannelView {
 public:
  ChannelBase(std::string name, std::size_t capacity);
  const std::string& name() const noexcept override { return name_; }
  ChannelSnapshot snapshot() const override;

  std::size_t capacity() const noexcept { return capacity_.load(std::memory_order_relaxed); }
  std::uint64_t messages() const noexcept { return messages_.load(std::memory_order_relaxed); }

  // Called by the writer side: end of stream. Idempotent; never blocks (it may spin briefly on the lock).
  void close() noexcept;
  // Called when the reader endpoint goes away: a blocked or later write throws BrokenChannel.
  void detach_reader() noexcept;
  void grow(std::size_t new_capacity) override;

  // The processes at each end, for deadlock reports: declared by whoever builds the network, or recorded
  // when an endpoint is first used.
  void set_endpoint_names(std::string writer, std::string reader);
  void record_endpoint_user(bool writer_side, const std::string& process) noexcept;

 protected:
  // Size of the buffer; the caller holds lock_.
  virtual std::size_t size_locked() const noexcept = 0;

  mutable BusyWaitMutex lock_;
  Process* reader_waiting_ = nullptr;
  Process* writer_waiting_ = nullptr;
  bool closed_ = false;
  bool reader_gone_ = false;
  std::string writer_name_;
  std::string reader_name_;
  std::uint64_t cross_worker_messages_ = 0;  // read on another worker than written (worker_trail.hpp)
  // Changed under lock_ only; atomic so that reports may read them without it.
  std::atomic<std::size_t> capacity_;
  std::atomic<std::uint64_t> messages_{0};

 private:
  const std::string name_;
};

}  // namespace kpn
