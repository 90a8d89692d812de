#pragma once
// The outputs of a kind with several of them, under the rule for broken channels (docs/topology.md, "End
// of stream and broken channels"): an output whose reader has gone is dropped, and the process goes on
// serving the others. What each remaining output receives therefore depends only on the input, never on
// when a reader left: Kahn's determinism survives a reader that stops early.

#include <cstddef>
#include <utility>
#include <vector>

#include "channels/channel.hpp"
#include "channels/errors.hpp"

namespace kpn {

template <class T>
class FanOut {
 public:
  explicit FanOut(std::vector<Writer<T>> outs) : outs_(std::move(outs)), live_(outs_.size()) {}

  std::size_t size() const noexcept { return outs_.size(); }
  // Invariant: live() counts the outputs not yet dropped; a dropped output stays empty for good.
  std::size_t live() const noexcept { return live_; }
  bool live(std::size_t i) const noexcept { return static_cast<bool>(outs_[i]); }

  // Writes `value` to output i unless it was dropped; drops it if its reader has gone (the value is lost
  // with the reader, as a value left in its buffer would be).
  void write(std::size_t i, T value) {
    if (!outs_[i]) return;
    try {
      outs_[i].write(std::move(value));
    } catch (const BrokenChannel&) {
      outs_[i] = Writer<T>(nullptr);
      --live_;
    }
  }

 private:
  std::vector<Writer<T>> outs_;
  std::size_t live_;
};

}  // namespace kpn
