#include "runtime/held_reads.hpp"

#include <utility>

#include "runtime/current.hpp"
#include "runtime/process.hpp"

namespace kpn {

bool hold_reads(ChannelView& reads) noexcept {
  Process* self = current_process();
  if (self == nullptr) return false;
  if (self->held_reads_ == nullptr) self->held_reads_ = &reads;
  return self->held_reads_ == &reads;
}

void drop_held_reads(ChannelView& reads) noexcept {
  Process* self = current_process();
  if (self != nullptr && self->held_reads_ == &reads) self->held_reads_ = nullptr;
}

void give_back_reads_of(ChannelView& channel) noexcept {
  Process* self = current_process();
  if (self != nullptr && self->held_reads_ == &channel) self->give_back_held_reads();
}

bool current_process_holds_reads() noexcept {
  const Process* self = current_process();
  return self != nullptr && self->held_reads_ != nullptr;
}

void give_back_held_reads() noexcept {
  Process* self = current_process();
  if (self != nullptr) self->give_back_held_reads();
}

}  // namespace kpn
