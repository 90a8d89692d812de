#pragma once
// FIFO storage of a channel: a ring of slots that grows by doubling (to the channel's capacity) and never
// shrinks, so a channel of large capacity costs memory only for what it has held at once, and steady-state
// traffic never allocates. Not synchronised: the channel's lock guards it. Move-only element types work.

#include <cstddef>
#include <memory>
#include <new>
#include <utility>

namespace kpn {

template <class T>
class RingBuffer {
 public:
  RingBuffer() = default;
  // `first_slots` (rounded up to a power of two, at most kMaxFirstSlots) is what the first push allocates:
  // a channel of capacity 1 holds one message at a time, and its ring stays within one cache line.
  explicit RingBuffer(std::size_t first_slots) : first_slots_(first_slots_for(first_slots)) {}
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;
  ~RingBuffer() {
    while (size_ > 0) pop_front();
    if (slots_ != nullptr) std::allocator<T>().deallocate(slots_, mask_ + 1);
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

  static std::size_t first_slots_for(std::size_t wanted) noexcept {
    std::size_t n = 1;
    while (n < wanted && n < kMaxFirstSlots) n *= 2;
    return n;
  }

  void grow() {
    const std::size_t old_slots = slots_ == nullptr ? 0 : mask_ + 1;
    const std::size_t new_slots = old_slots == 0 ? first_slots_ : old_slots * 2;
    T* bigger = std::allocator<T>().allocate(new_slots);
    for (std::size_t i = 0; i < size_; ++i) {
      T* from = slots_ + ((head_ + i) & mask_);
      std::construct_at(bigger + i, std::move(*from));
      std::destroy_at(from);
    }
    if (slots_ != nullptr) std::allocator<T>().deallocate(slots_, old_slots);
    slots_ = bigger;
    mask_ = new_slots - 1;
    head_ = 0;
  }

  T* slots_ = nullptr;
  std::size_t mask_ = 0;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::size_t first_slots_ = kMaxFirstSlots;
};

}  // namespace kpn
