#pragma once
// The channels of a run: those of the initial network and those created by its processes. The report
// lists them; the deadlock monitor and graph-placing policies read their snapshots.

#include <memory>
#include <mutex>
#include <vector>

#include "runtime/channel_view.hpp"

namespace kpn {

class ChannelRegistry {
 public:
  void add(std::shared_ptr<ChannelView> channel) {
    std::lock_guard g(mutex_);
    channels_.push_back(std::move(channel));
  }
  // A copy of the list (the channels themselves are shared), so callers take channel locks without this one.
  std::vector<std::shared_ptr<ChannelView>> list() const {
    std::lock_guard g(mutex_);
    return channels_;
  }

 private:
  mutable std::mutex mutex_;  // guards channels_
  std::vector<std::shared_ptr<ChannelView>> channels_;
};

}  // namespace kpn
