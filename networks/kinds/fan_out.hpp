#pragma once
// The outputs of a kind with several of them, under the rule for broken channels (docs/topology.md, "End
// of stream and broken channels"): an output whose reader has gone is dropped, and the process goes on
// serving the others. What each remaining output receives therefore depends only on the input, never on
// when a reader left: Kahn's determinism survives a reader that stops early.
//
// A process in a cycle also ends once nothing can observe the cycle any more (networks/feedback.hpp):
// every output that leaves the cycle is gone, and no other member of the cycle has a way out. Its
// feedback outputs are then closed as it ends, and the cycle winds down.

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "channels/channel.hpp"
#include "channels/errors.hpp"
#include "networks/kinds.hpp"

namespace kpn {

template <class T>
class FanOut {
 public:
  // `feedback`: per output, whether it stays inside a cycle through this process (empty: none does).
  FanOut(std::vector<Writer<T>> outs, std::vector<bool> feedback, bool cycle_has_other_exits)
      : outs_(std::move(outs)), feedback_(std::move(feedback)), live_(outs_.size()), cycle_has_other_exits_(cycle_has_other_exits) {
    feedback_.resize(outs_.size(), false);
    for (bool f : feedback_) observed_ += f ? 0 : 1;
    had_observed_ = observed_ > 0;
  }
  explicit FanOut(std::vector<Writer<T>> outs) : FanOut(std::move(outs), {}, true) {}
  // The outputs of array port `port` of the process being made.
  static FanOut of(KindContext& ctx, std::string_view port) {
    return FanOut(ctx.outputs<T>(port), ctx.feedback(port), ctx.cycle_has_other_exits());
  }

  std::size_t size() const noexcept { return outs_.size(); }
  bool live(std::size_t i) const noexcept { return static_cast<bool>(outs_[i]); }
  // Whether the process should end: every output is gone, or nothing can observe its cycle any more.
  bool done() const noexcept { return live_ == 0 || (had_observed_ && observed_ == 0 && !cycle_has_other_exits_); }

  // Writes `value` to output i unless it was dropped; drops it if its reader has gone (the value is lost
  // with the reader, as a value left in its buffer would be).
  void write(std::size_t i, T value) {
    if (!outs_[i]) return;
    try {
      outs_[i].write(std::move(value));
    } catch (const BrokenChannel&) {
      outs_[i] = Writer<T>(nullptr);
      --live_;
      if (!feedback_[i]) --observed_;
    }
  }

 private:
  // Invariants: live_ counts the outputs not yet dropped, observed_ those of them that leave the cycle; a
  // dropped output stays empty for good.
  std::vector<Writer<T>> outs_;
  std::vector<bool> feedback_;
  std::size_t live_;
  std::size_t observed_ = 0;
  bool had_observed_ = false;
  bool cycle_has_other_exits_;
};

}  // namespace kpn
