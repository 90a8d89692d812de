#pragma once
// Which worker wrote the messages waiting in a channel, to count the messages that cross workers (written
// on one worker, read on another): the measure of how well a policy keeps talking processes together.
//
// Stored run-length encoded, oldest first: a run is "the next `count` messages were written on worker
// `worker`". A writer that stays on one worker extends the last run, so a channel needs one or two runs in
// the common case and the ring never grows past the channel's capacity; steady traffic never allocates.
// Not synchronised: the channel's lock guards it, like the messages it describes.

#include <cstdint>

#include "channels/ring_buffer.hpp"

namespace kpn {

class WorkerTrail {
 public:
  // A message was appended on `worker` (-1: written outside the runtime's workers).
  void on_write(int worker) {
    if (!runs_.empty() && runs_.back().worker == worker && runs_.back().count != UINT32_MAX) {
      ++runs_.back().count;
    } else {
      runs_.push_back(Run{worker, 1});
    }
  }

  // The oldest message was taken on `worker`; returns true if it was written on another worker. Messages
  // written or read outside the workers count as not crossing. Requires a message written with on_write.
  bool on_read(int worker) {
    Run& oldest = runs_.front();
    const bool crossed = oldest.worker != worker && oldest.worker >= 0 && worker >= 0;
    if (--oldest.count == 0) runs_.pop_front();
    return crossed;
  }

 private:
  struct Run {
    int worker;
    std::uint32_t count;  // a longer run continues in the next one
  };
  RingBuffer<Run> runs_;
};

}  // namespace kpn
