#pragma once
// FIFO storage of a channel: a ring of slots that grows by doubling (to the channel's capacity) and never
// shrinks, so a channel of large capacity costs memory only for what it has held at once, and steady-state
// traffic never allocates. Not synchronised: the channel's lock guards it. Move-only element types work.
//
// A ring whose first size is one slot, of an element of at most kInlineBytes, keeps that slot inside
// itself: a capacity-1 channel's message then sits beside the channel's lock and indices, in the lines
// every operation touches anyway, instead of in a separate allocation (one more line to move between CPUs
// for each message that crosses workers, and one more allocation per channel). Growing past one slot moves
// to the heap as before; the inline slot is not used again.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace kpn {

template <class T>
class RingBuffer {
 public:
  RingBuffer() = default;
  // `first_slots` (rounded up to a power of two, at most kMaxFirstSlots) is what the first push allocates:
  // a channel of capacity 1 holds one message at a time, in the inline slot where the element is small.
  explicit RingBuffer(std::size_t first_slots) : first_slots_(static_cast<std::uint8_t>(first_slots_for(first_slots))) {}
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;
  ~RingBuffer() {
    while (size_ > 0) pop_front();
    if (on_heap()) std::allocator<T>().deallocate(slots_, mask_ + 1);
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  void push_back(T&& value) {
    if (slots_ == nullptr || size_ == mask_ + 1) grow();
    std::construct_at(slots_ + ((head_ + size_) & mask_), std::move(value));
    ++size_;
  }

  // The oldest and the newest element; the buffer must not be empty.
  T& front() noexcept { return slots_[head_]; }
  T& back() noexcept { return slots_[(head_ + size_ - 1) & mask_]; }

  // Where the elements lie, for a reader that walks them without the lock that guards the buffer: the
  // i-th oldest is slot_array()[(head_index() + i) & index_mask()]. Valid while the buffer does not grow,
  // and it grows only when it holds slots() elements.
  T* slot_array() noexcept { return slots_; }
  std::size_t index_mask() const noexcept { return mask_; }
  std::size_t head_index() const noexcept { return head_; }
  std::size_t slots() const noexcept { return slots_ == nullptr ? 0 : mask_ + 1; }
  // Destroys the `n` oldest elements (n <= size()).
  void drop_front(std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
      std::destroy_at(slots_ + head_);
      head_ = (head_ + 1) & mask_;
    }
    size_ -= n;
  }

  T pop_front() {
    T* slot = slots_ + head_;
    T value = std::move(*slot);
    std::destroy_at(slot);
    head_ = (head_ + 1) & mask_;
    --size_;
    return value;
  }

 private:
  static constexpr std::size_t kMaxFirstSlots = 8;
  static constexpr std::size_t kInlineBytes = 16;  // an i64 message and its writer's worker (channel.hpp)
  static constexpr bool kInline = sizeof(T) <= kInlineBytes && alignof(T) <= alignof(std::max_align_t);

  struct InlineSlot {
    alignas(T) unsigned char bytes[sizeof(T)];
  };
  struct NoInlineSlot {};

  T* inline_slot() noexcept {
    if constexpr (kInline) {
      return std::launder(reinterpret_cast<T*>(inline_.bytes));
    } else {
      return nullptr;
    }
  }
  bool on_heap() noexcept { return slots_ != nullptr && slots_ != inline_slot(); }

  static std::size_t first_slots_for(std::size_t wanted) noexcept {
    std::size_t n = 1;
    while (n < wanted && n < kMaxFirstSlots) n *= 2;
    return n;
  }

  void grow() {
    const std::size_t old_slots = slots_ == nullptr ? 0 : mask_ + 1;
    const std::size_t new_slots = old_slots == 0 ? first_slots_ : old_slots * 2;
    if (kInline && new_slots == 1) {
      slots_ = inline_slot();
      mask_ = 0;
      head_ = 0;
      return;
    }
    T* bigger = std::allocator<T>().allocate(new_slots);
    for (std::size_t i = 0; i < size_; ++i) {
      T* from = slots_ + ((head_ + i) & mask_);
      std::construct_at(bigger + i, std::move(*from));
      std::destroy_at(from);
    }
    if (on_heap()) std::allocator<T>().deallocate(slots_, old_slots);
    slots_ = bigger;
    mask_ = new_slots - 1;
    head_ = 0;
  }

  T* slots_ = nullptr;
  std::size_t mask_ = 0;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::uint8_t first_slots_ = kMaxFirstSlots;  // at most kMaxFirstSlots
  [[no_unique_address]] std::conditional_t<kInline, InlineSlot, NoInlineSlot> inline_;
};

}  // namespace kpn
