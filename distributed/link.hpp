#pragma once
// What an agent process (remote_channels.hpp) and the communication thread (comm.hpp) share for one
// cross-rank channel. The agent waits for it inside kpn::blocking (a pool thread sleeps on the condition
// variable), so that a waiting agent counts as active and no rank ever looks quiescent or deadlocked to
// its own runtime while a message may still come from another rank.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

namespace kpn::distributed {

// A wake-up flag: whoever changes what the agent waits for sets `dirty` under `mutex` and notifies, so a
// wait that starts after the change returns at once (no lost wake-up).
class AgentSignal {
 public:
  void notify() {
    {
      std::lock_guard g(mutex);
      dirty = true;
    }
    cv.notify_one();
  }
  // Returns when notified or after `timeout`: the agent then returns to its process, which is where a
  // stopping network unwinds it (a blocking call itself cannot be interrupted, runtime/blocking_call.hpp).
  void wait(std::chrono::milliseconds timeout) {
    std::unique_lock l(mutex);
    busy = false;
    cv.wait_for(l, timeout, [this] { return dirty; });
    dirty = false;
    busy = true;
  }

  // The agent is done with this link for good.
  void retire() {
    std::lock_guard g(mutex);
    busy = false;
  }

  std::mutex mutex;
  std::condition_variable cv;
  bool dirty = false;  // guarded by mutex
  // Guarded by mutex: the agent is between two waits (it may hold work taken from its link or channel),
  // so its rank is not stalled (watch.hpp). True from the start: an agent that has not yet run is busy.
  bool busy = true;
};

// The writer's rank: credits and the reader's departure arrive here from the communication thread.
struct OutLink {
  std::uint32_t channel = 0;
  int peer = 0;  // the reader's rank
  AgentSignal signal;
  std::uint64_t credits = 0;  // guarded by signal.mutex: messages the reader consumed, not yet applied
  bool broken = false;        // guarded by signal.mutex: the reader is gone
};

// The reader's rank: batches and the end of the stream arrive here from the communication thread.
struct InLink {
  std::uint32_t channel = 0;
  int peer = 0;  // the writer's rank
  AgentSignal signal;
  std::deque<std::string> batches;  // guarded by signal.mutex: encoded values, in arrival order
  bool eos = false;                 // guarded by signal.mutex: the last batch has arrived
};

}  // namespace kpn::distributed
