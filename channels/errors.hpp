#pragma once
// How channel misuse is reported.

#include <stdexcept>
#include <string>

#include "runtime/export.hpp"
#include "runtime/process_exit.hpp"

namespace kpn {

// Writing to a channel after its writer closed it.
class KPN_EXPORT ChannelClosed : public std::logic_error {
 public:
  explicit ChannelClosed(const std::string& channel)
      : std::logic_error("write to closed channel '" + channel + "'") {}
};

// A channel endpoint used by a second process while bound to another (KPN allows one reader and one
// writer per channel), or used outside any process.
class KPN_EXPORT ChannelMisuse : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The reader of a channel is gone (its endpoint was destroyed), so what is written could never be read.
// Thrown by write(); if the process does not catch it, the process ends normally, as a Unix pipeline
// stage ends on SIGPIPE.
class KPN_EXPORT BrokenChannel : public ProcessExit {
 public:
  explicit BrokenChannel(std::string channel) : channel_(std::move(channel)) {}
  const std::string& channel() const noexcept { return channel_; }

 private:
  std::string channel_;
};

}  // namespace kpn
