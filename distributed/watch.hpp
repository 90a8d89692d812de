#pragma once
// What one rank tells rank 0 for the deadlock check across ranks (comm.hpp: PROBE and STATUS).
//
// A rank is *stalled* when each of its declared processes that has not ended waits on one of its own
// channels (the snapshot shows it in the waiter slot of its side), no writer's end of a cross-rank channel
// is queued for the communication thread (link.hpp), and the thread has nothing else queued to send
// (what arrives is delivered by the thread itself, which also takes the sample). A process running,
// ready, sleeping, in a blocking call, waiting with a deadline (read_for, write_for, a select with a
// timeout: its timer will ready it) or waiting on a channel it created at run time is not stalled on its
// declared channels, so its rank is not stalled: the check errs towards "still running", never
// towards a deadlock. The fingerprint covers every channel's message count, length and waiters' park
// counts: equal fingerprints in two samples mean that nothing moved in between.
//
// Rank 0 declares a deadlock when, in two rounds in a row, every rank was stalled (or done), at least one
// was not done, as many channel messages were received as were sent (none in flight), and the ranks'
// fingerprints were the same: nothing can change any more, since only a message, a timer or a running
// process could change it, and there is none.
//
// Parks' growth across ranks. A stalled rank also reports the smallest full channel that one of its
// processes waits to write (`full`): a local channel, or the Outbox of a cross-rank one, whose window is
// then full. If the deadlock has such a writer it is artificial, and rank 0 grows the smallest of them,
// over every rank, as one machine's runtime would (comm.hpp: GROW).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "channels/channel_base.hpp"
#include "distributed/link.hpp"
#include "runtime/unique_function.hpp"

namespace kpn::distributed {

struct WatchSample {
  bool stalled = false;
  std::uint64_t fingerprint = 0;
  std::string blocked;  // "snk reads 'slow.out -> snk.in'; ...", for the deadlock's message
  // The smallest full channel a waiting process writes (none: null), for Parks' growth across ranks.
  std::shared_ptr<ChannelBase> full;
  std::size_t full_capacity = 0;
  std::string full_name;
};

// `body`, wrapped so that `ended` is set once the process has ended *and released its channel ends*: the
// body returns, its captures (the endpoints) are destroyed, which closes the channels it writes (an
// Outbox's close queues its link, so the EOS counts as something to send) and detaches those it reads (a
// cross-rank one posts BROKEN), and only then the flag is set. Set any earlier, the sample would skip the
// process while a close it owes is not yet posted anywhere: its reader, waiting, and every other rank
// quiet, two rounds could find nothing moving and declare a deadlock that the close was about to end.
// A body that ends by ProcessExit (BrokenChannel among others) ended normally: the same. A body that
// fails or is cancelled propagates as it would unwrapped, its captures left to the runtime (which stops
// the network before they go) and `ended` unset: its rank never looks stalled again, and the network is
// stopping anyway.
UniqueFunction<void()> watched_body(UniqueFunction<void()> body, std::shared_ptr<std::atomic<bool>> ended);

class RankWatch {
 public:
  struct Process {
    std::string name;
    std::vector<std::pair<std::shared_ptr<ChannelBase>, bool>> ports;  // channel, true: this process writes it
    std::shared_ptr<std::atomic<bool>> ended;
  };

  void add_process(Process p) { processes_.push_back(std::move(p)); }
  void add_channel(std::shared_ptr<ChannelBase> c) { channels_.push_back(std::move(c)); }
  void add_links(const std::vector<OutLink*>& out) { out_ = out; }
  // Processes the watch does not declare: `live` counts the run's unfinished processes (Runtime::
  // live_processes), `pollers` the link pollers among them that are still alive (links not over). A rank
  // with more live processes than its declared unended ones and its pollers has a spawned process
  // (kpn::spawn), which may be running: it is not stalled. Without them the watch sees declared processes only.
  void count_live(std::function<std::int64_t()> live, std::function<std::int64_t()> pollers) {
    live_ = std::move(live);
    pollers_ = std::move(pollers);
  }
  // From the communication thread, while the network runs.
  WatchSample sample() const;

 private:
  std::vector<Process> processes_;
  std::vector<std::shared_ptr<ChannelBase>> channels_;
  std::vector<OutLink*> out_;
  std::function<std::int64_t()> live_;
  std::function<std::int64_t()> pollers_;
};

}  // namespace kpn::distributed
