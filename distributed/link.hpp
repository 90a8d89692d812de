#pragma once
// What the communication thread (comm.hpp) and the two ends of one cross-rank channel
// (remote_channels.hpp) share. There is no process in between: the thread takes what a writer wrote
// straight from the writer's end, and puts what arrives straight into the reader's end, waking the
// process that waits there (runtime/blocking.hpp's ForeignWakeList: whoever takes a waiter out of its slot
// under the channel's lock readies it, through the run's gate for threads that are not its own). The
// waiters are readied once the thread has ended its turn (comm.hpp), so that a worker it wakes on its own
// CPU cannot preempt it while it holds the turn.
//
// The writer's end tells the thread that it has something (a message, or its close) by queueing its link
// (Comm::post_ready). `queued` makes that one list entry and one wake-up per batch instead of one per
// message: the writer sets it after its message is in the end, the thread clears it before it looks at the
// end, so a message is either taken by a look already under way or queues the link again (the argument is
// at Comm::flush).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/blocking.hpp"

namespace kpn::distributed {

// At most this many messages in one MPI message (the window C bounds a batch too).
inline constexpr std::size_t kMaxBatch = 4096;

// The writer's end of a cross-rank channel, as the communication thread drives it. Every call is the
// thread's, and may take the channel's lock (a short busy wait, beside the writer's own).
class OutSource {
 public:
  // Appends up to `max` unsent messages, encoded, to `payload`; they now count as sent and unconsumed
  // until their credits come back. Returns how many.
  virtual std::uint32_t take_unsent(std::string& payload, std::size_t max) = 0;
  // The stream is over: the writer closed its end (or the reader is gone) and nothing is left to send.
  virtual bool over() = 0;
  // The reader consumed `n` more messages: the writer may write n more (a waiting writer goes to `wakes`).
  virtual void acknowledge(std::uint64_t n, ForeignWakeList& wakes) = 0;
  // The reader is gone: what was not sent never will be, and the writer's next write throws.
  virtual void break_remote(ForeignWakeList& wakes) = 0;

 protected:
  ~OutSource() = default;
};

// The reader's end of a cross-rank channel, as the communication thread fills it.
class InSink {
 public:
  // Decodes one batch and appends it to the channel (a waiting reader goes to `wakes`). Never blocks:
  // the writer's credit window bounds what arrives. Throws WireError on a malformed batch.
  virtual void deliver(const char* p, const char* end, ForeignWakeList& wakes) = 0;
  // The writer closed its end: the reader reads what is left, then the end of the stream.
  virtual void end_of_stream(ForeignWakeList& wakes) = 0;

 protected:
  ~InSink() = default;
};

// The writer's rank. Set before the thread starts (channel, peer, the end and its owner); then `queued`
// is shared and `eos_sent` is the thread's own.
struct OutLink {
  std::uint32_t channel = 0;
  int peer = 0;  // the reader's rank
  OutSource* source = nullptr;
  std::shared_ptr<void> keep;  // owns the end: the thread may still touch it after the network is gone
  std::atomic<bool> queued{false};
  bool eos_sent = false;
};

// The reader's rank. Set before the thread starts; then `eos_received` is the thread's own.
struct InLink {
  std::uint32_t channel = 0;
  int peer = 0;  // the writer's rank
  InSink* sink = nullptr;
  std::shared_ptr<void> keep;
  bool eos_received = false;
};

}  // namespace kpn::distributed
