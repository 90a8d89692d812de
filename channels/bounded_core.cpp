#include "channels/bounded_core.hpp"

#include <stdexcept>

#include "channels/errors.hpp"
#include "runtime/channel_support.hpp"

namespace kpn {

BoundedCore::BoundedCore(std::string name, std::size_t capacity) : capacity_(capacity), name_(std::move(name)) {
  if (capacity == 0) throw std::invalid_argument("channel '" + name_ + "': capacity must be at least 1");
}

void BoundedCore::throw_closed() const {
  unwind_if_requested();
  throw ChannelClosed(name_);
}

void BoundedCore::throw_reader_gone() const {
  unwind_if_requested();
  throw BrokenChannel(name_);
}

ChannelSnapshot BoundedCore::snapshot_locked() const {
  ChannelSnapshot s;
  s.name = name_;
  s.capacity = capacity();
  s.messages = messages();
  s.cross_worker_messages = cross_worker_messages + cross_worker_handoffs.load(std::memory_order_relaxed);
  const WaiterInfo r = waiter_info(reader_waiting);
  const WaiterInfo w = waiter_info(writer_waiting);
  s.reader_waiting = r.id;
  s.reader_waiting_parks = r.parks;
  s.writer_waiting = w.id;
  s.writer_waiting_parks = w.parks;
  s.reader_waiting_timed = r.timed;
  s.writer_waiting_timed = w.timed;
  s.writer = writer_id_;
  s.reader = reader_id_;
  s.writer_name = writer_name_;
  s.reader_name = reader_name_;
  return s;
}

void BoundedCore::grow(std::size_t new_capacity) {
  WakeList wake;
  std::lock_guard g(lock);
  if (new_capacity > capacity()) capacity_.store(new_capacity, std::memory_order_relaxed);
  wake.take(writer_waiting);
}

void BoundedCore::set_endpoint_names(std::string writer, std::string reader) {
  std::lock_guard g(lock);
  writer_name_ = std::move(writer);
  reader_name_ = std::move(reader);
}

void BoundedCore::record_endpoint_user(bool writer_side, ProcessId id, const std::string& name) noexcept {
  std::lock_guard g(lock);
  (writer_side ? writer_id_ : reader_id_) = id;
  try {
    (writer_side ? writer_name_ : reader_name_) = name;
  } catch (...) {
    // Out of memory for a name used only in messages: keep the id, which is what identity rests on.
  }
}

void BoundedCore::close() noexcept {
  // While the network stops (a process failed, a deadlock, an interrupt), endpoints are destroyed by
  // unwinding, not by processes that finished their stream: a reader must not mistake that for the end
  // of the stream, so the channel stays open and the reader is unwound where it waits.
  if (current_run_stopping()) return;
  WakeList wake;
  std::lock_guard g(lock);
  closed = true;
  wake.take(reader_waiting);
}

void BoundedCore::detach_reader() noexcept {
  WakeList wake;
  std::lock_guard g(lock);
  reader_gone = true;
  wake.take(writer_waiting);
}

}  // namespace kpn
