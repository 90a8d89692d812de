#include "runtime/timer_queue.hpp"

#include <mutex>
#include <utility>

namespace kpn {

bool TimerQueue::insert(TimerNode& node, std::int64_t deadline_ns) {
  std::lock_guard g(lock_);
  node.deadline_ns = deadline_ns;
  node.seq = next_seq_++;
  heap_.push_back(&node);
  node.index = heap_.size() - 1;
  sift_up(node.index);
  publish_earliest();
  return heap_.front() == &node;
}

void TimerQueue::remove(TimerNode& node) {
  std::lock_guard g(lock_);
  if (node.index == TimerNode::kNotQueued) return;
  erase_at(node.index);
  publish_earliest();
}

void TimerQueue::erase_at(std::size_t i) noexcept {
  TimerNode* gone = heap_[i];
  TimerNode* last = heap_.back();
  heap_.pop_back();
  gone->index = TimerNode::kNotQueued;
  if (i == heap_.size()) return;
  place(i, last);
  sift_up(i);
  sift_down(last->index);
}

void TimerQueue::sift_up(std::size_t i) noexcept {
  TimerNode* n = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!before(n, heap_[parent])) break;
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, n);
}

void TimerQueue::sift_down(std::size_t i) noexcept {
  TimerNode* n = heap_[i];
  const std::size_t size = heap_.size();
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= size) break;
    if (child + 1 < size && before(heap_[child + 1], heap_[child])) ++child;
    if (!before(heap_[child], n)) break;
    place(i, heap_[child]);
    i = child;
  }
  place(i, n);
}

}  // namespace kpn
