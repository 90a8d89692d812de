#pragma once
// The communication thread of one rank: the only thread that calls MPI while the network runs (the main
// thread calls it before the thread starts and after it is joined, hence MPI_THREAD_SERIALIZED; see
// session.hpp). Channel ends post what they want sent (post_*); the thread takes a writer's messages from
// its end and puts what arrives into the reader's end itself (link.hpp), waking the process that waits
// there.
//
// Messages. One tag carries a channel's traffic, so that MPI's non-overtaking rule (same source, tag and
// communicator) keeps a channel's batches and its end of stream in order; a second tag carries a failure:
//   DATA    writer rank -> reader rank   channel, count, count encoded values (a batch)
//   EOS     writer rank -> reader rank   channel: the writer closed it; nothing follows
//   CREDITS reader rank -> writer rank   (channel, n) pairs: the reader consumed n more messages
//   BROKEN  reader rank -> writer rank   channel: the reader is gone; further writes throw BrokenChannel
//   ABORT   any rank -> every other      text: the network failed there (a process threw, an interrupt)
//   PROBE   rank 0 -> every other        round: the deadlock check across ranks (watch.hpp), every 200 ms
//                                        (20 ms while growths go on)
//   STATUS  every other -> rank 0        round, stalled, done, channel messages sent and received,
//                                        fingerprint, its smallest full channel with a waiting writer
//                                        (capacity, name), the blocked processes
//   GROW    rank 0 -> one rank           round, new capacity: grow the full channel of that round's STATUS
//   ALIVE   any rank -> any other        nothing: sent to a rank that was sent nothing else for 100 ms
//
// Parks' growth across ranks (watch.hpp). When rank 0's check finds the deadlock (two quiet rounds, above)
// and some rank's STATUS named a full channel that a process waits to write, the deadlock is artificial:
// rank 0 grows the smallest such channel over all ranks (ties: the lowest rank), to twice its capacity
// but at most --max-capacity, as the runtime does on one machine, instead of stopping the run. It sends
// GROW (or grows its own) naming the round of the STATUS that reported it; the rank grows the channel it
// sampled in that round. Nothing moved since (the verdict says nothing can), so it is still full and its
// writer still waits; grow() wakes it. A cross-rank channel grows on its writer's rank: the Outbox's
// capacity is the window, so the writer may have twice as many messages unconsumed; the reader's rank
// needs no word of it, since its Inbox holds whatever arrives (the window bounds it, remote_channels.hpp).
// No growth is lost or doubled: rank 0 forgets its previous round (previous_all_stalled_ = false), so
// the next verdict needs two new quiet rounds; its next PROBE to that rank follows the GROW from the same
// sender on the same communicator and matches the same receive (MPI_ANY_TAG), so by MPI's non-overtaking
// rule the rank has grown the channel before it answers, and its woken writer makes it not stalled. If the
// channel may not grow (at --max-capacity) or no writer waits on a full one, the deadlock is true and is
// reported as before. While growths go on, rank 0 probes every 20 ms instead of every 200 ms.
//
// Liveness (a rank killed, crashed or stopped). MPI itself says nothing when a peer dies: Open MPI's
// mpirun, by default, sees the dead rank's exit and sends SIGTERM to the others (SIGKILL 1 s later,
// odls_base_sigkill_timeout), and under `mpirun --enable-recovery` it lets them run on, where they would
// wait for the dead rank's credits, barrier or STATUS forever. So, while the thread runs, each rank sends
// every other something at least every kAlivePeriod (100 ms: ALIVE when it had nothing else to send), and
// every message received refreshes its sender's last-heard time. A peer not heard from for the timeout is
// *lost*: the rank interrupts its run with "rank P stopped answering", leaves the end below (the barrier
// would wait for P) and the runner ends the job with MPI_Abort instead of the collectives of the report.
// The timeout is the runner's --peer-timeout (10 s by default: a live rank's thread never goes that long
// without a turn, and every live rank answers, done or not, until the barrier completes) while the run is
// on, and 0.7 s once this rank was stopped by a signal (stopped_by_signal()): that is what mpirun does when
// a rank died, every live rank got the same signal and keeps answering until the end, so a silent one is
// the dead one, named before mpirun's SIGKILL comes. No false "lost" can end a run that would have ended
// well: a rank only stops answering after the barrier completes, and then no rank checks any more.
//
// The end (finish). A rank's run ends when its processes, its link poller included, have ended. It then enters a
// non-blocking barrier while still receiving; the barrier completes once every rank has entered it, so
// no rank posts anything new after that. What was sent before may still be on its way: the ranks then
// exchange how many messages each sent to each (MPI_Alltoall) and each receives until it has them all,
// and waits for its own sends to complete. Every message is thus received before MPI_Finalize.
//
// Turns. The thread shares its rank's CPUs with the workers; while they compute, the kernel runs it only
// at the end of a time slice. So the rank's link poller, a process (remote_channels.hpp), does the
// thread's work between two processes when nobody has for a while (assist). Whoever calls MPI holds the
// rank's turn (turn_; MPI_THREAD_SERIALIZED); the processes a turn readies are readied after it ends
// (a worker readied on the thread's own CPU may preempt it), and the streams it saw end count as over
// after those wake-ups (the poller, which keeps the rank active, may end once they are all over).
//
// Idle. With nothing to send or receive the thread backs off from yielding (the first 200 us) to sleeping
// 50 us (the first 50 ms), then 1 ms, on a condition variable that a post wakes at once: an idle rank costs
// a thousand wake-ups a second, and a message that arrives while it sleeps waits at most 1 ms.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <mpi.h>

#include "distributed/link.hpp"
#include "distributed/watch.hpp"

namespace kpn::distributed {

struct CommStats {
  std::uint64_t channels_grown = 0;  // Parks' growths applied on this rank (rank 0's check across ranks)
  std::uint64_t values_sent = 0;    // messages of channels, sent to other ranks
  std::uint64_t batches_sent = 0;   // MPI messages that carried them (DATA)
  std::uint64_t bytes_sent = 0;     // every MPI message's bytes, control messages included
  std::uint64_t control_sent = 0;   // CREDITS, EOS, BROKEN and ABORT messages
  std::uint64_t values_received = 0;
  std::uint64_t batches_received = 0;
  std::uint64_t bytes_received = 0;
};

class Comm {
 public:
  Comm(int rank, int size);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

  // Before start(), from the main thread: one link per cross-rank channel end on this rank. The
  // references stay valid until the Comm is destroyed.
  OutLink& add_out_link(std::uint32_t channel, int reader_rank);
  InLink& add_in_link(std::uint32_t channel, int writer_rank);
  std::vector<OutLink*> out_links();

  // Called with the text of the first ABORT that arrives, on the communication thread, every millisecond
  // until local_done(): the runner interrupts its runtime (an interrupt before the run starts is lost).
  void on_remote_failure(std::function<void()> interrupt) { interrupt_ = std::move(interrupt); }
  // Before start(): what this rank reports to the deadlock check (none: the check is off).
  void set_watch(const RankWatch* watch) { watch_ = watch; }
  // Before start(): the largest capacity Parks' growth may give a channel (the runner's --max-capacity).
  void set_max_capacity(std::size_t n) { max_capacity_ = n; }
  // Before start(): how long a peer may be silent while the run is on before it is taken for lost.
  void set_peer_timeout(std::chrono::milliseconds t) { peer_timeout_ = t; }
  void start();
  // This rank's run was stopped by a signal (likely mpirun ending the job): a peer silent for 0.7 s is lost.
  void stopped_by_signal() { hurried_.store(true); }

  // From any thread or process, while the thread runs. Never block (beyond a short lock).
  // The writer's end of `link` has something new: a message, or its close (link.hpp: `queued`).
  void post_ready(OutLink& link);
  void post_credits(const InLink& link, std::uint64_t n);
  void post_broken(const InLink& link);
  void post_abort(const std::string& text);

  // The thread's work, done by a process of the rank's network (remote_channels.hpp: the link poller):
  // the thread shares the rank's CPUs with its workers, and while they compute it waits for the kernel's
  // next time slice, a millisecond or more, with messages to send and to deliver. If nobody has taken a
  // turn (below) for `stale` and the turn is free, takes it: sends what is posted, delivers what arrived,
  // completes sends. Never waits for the turn.
  enum class Assist { Moved, Idle, Recent };
  Assist assist(std::chrono::nanoseconds stale);

  // Every cross-rank stream of this rank is over: EOS sent on each writer's end, received on each
  // reader's end (remote_channels.hpp: the link poller ends then).
  bool links_over() const noexcept { return links_open_.load(std::memory_order_acquire) == 0; }

  // The first failure reported by another rank, if any.
  std::optional<std::string> remote_failure() const;
  // After finish(): set when a peer stopped answering ("rank P stopped answering ..."). The end was then
  // cut short: no collective may follow (the lost rank would never join it); end the job with MPI_Abort.
  std::optional<std::string> lost_peer() const;
  // The main thread, once its run has returned: starts the end (above) and waits for the thread.
  void finish();

  CommStats stats() const;

 private:
  struct Pending;
  void loop();
  bool send_posted();
  void flush(OutLink& link);
  void link_over() { ++ended_in_turn_; }
  bool receive_arrived();
  void dispatch(int source, int tag, const std::string& bytes);
  void isend(int dest, int tag, std::string bytes);
  bool test_sends();
  void drain_at_end();
  // Liveness (above): ALIVE to quiet peers; true (and lost_ set) once a peer is silent past the timeout.
  bool check_peers(std::chrono::steady_clock::time_point now);
  void lose(int peer, const std::string& why);
  // The deadlock check across ranks (watch.hpp); rank 0 probes, every rank answers.
  struct Status {
    bool stalled = false;
    bool done = false;
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
    std::uint64_t fingerprint = 0;
    std::uint64_t full_capacity = 0;  // 0: no full channel with a waiting writer
    std::string full_name;
    std::string blocked;
  };
  Status local_status(bool done, std::uint64_t round);
  void grow_candidate(std::uint64_t round, std::uint64_t to);
  void watch_round(bool done);
  void on_status(int source, const Status& s);

  const int rank_;
  const int size_;
  MPI_Comm comm_ = MPI_COMM_NULL;  // a duplicate of MPI_COMM_WORLD: the runner's collectives never meet ours
  std::deque<OutLink> out_links_;                  // set before start
  std::deque<InLink> in_links_;                    // set before start
  std::map<std::uint32_t, OutLink*> out_by_channel_;
  std::map<std::uint32_t, InLink*> in_by_channel_;
  std::function<void()> interrupt_;
  const RankWatch* watch_ = nullptr;

  // Guarded by mutex_: what posts hand to the thread, and the flags of the end.
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  struct Outgoing {
    int dest;
    int tag;
    std::string bytes;
  };
  std::vector<Outgoing> outgoing_;
  std::vector<OutLink*> ready_;  // writer's ends with something new (each once: OutLink::queued)
  std::map<std::uint32_t, std::uint64_t> credits_;  // channel -> consumed, not yet sent
  bool local_done_ = false;
  std::optional<std::string> remote_failure_;
  std::optional<std::string> lost_;  // a peer stopped answering (the thread sets it, finish() reads it)

  // The thread's own.
  std::vector<std::unique_ptr<Pending>> pending_;  // sends in flight (their buffers must live until done)
  std::vector<std::uint64_t> sent_to_;             // messages sent to each rank
  std::vector<std::uint64_t> received_from_;       // messages received from each rank
  std::uint64_t channel_sent_ = 0;                 // DATA, EOS, CREDITS and BROKEN messages sent
  std::uint64_t channel_received_ = 0;             // and received
  // Rank 0's deadlock check: the round in progress, its statuses, and the previous round's verdict.
  std::uint64_t round_ = 0;
  std::vector<std::optional<Status>> statuses_;
  bool previous_all_stalled_ = false;
  std::vector<std::uint64_t> previous_fingerprints_;
  std::uint64_t previous_sent_ = 0;      // the four counters (Mattern): totals of the previous round
  std::uint64_t previous_received_ = 0;
  std::chrono::steady_clock::time_point next_probe_{};
  std::chrono::steady_clock::time_point round_started_{};
  bool deadlock_declared_ = false;
  // Parks' growth across ranks: the full channel this rank reported in round candidate_round_ (the
  // thread's own), and rank 0's time of its last growth (it probes faster for a while after one).
  std::shared_ptr<ChannelBase> candidate_;
  std::uint64_t candidate_round_ = 0;
  // A growth rank 0 ordered, for the link poller to apply (grow_candidate): set under the turn, applied
  // under the turn; growth_pending_ tells the poller to take one even while the thread takes its own.
  std::shared_ptr<ChannelBase> growth_;
  std::uint64_t growth_to_ = 0;
  std::atomic<bool> growth_pending_{false};
  void apply_growth();
  std::size_t max_capacity_ = std::size_t{1} << 20;
  std::chrono::steady_clock::time_point last_growth_{};
  std::atomic<std::uint64_t> channels_grown_{0};
  bool ending_ = false;  // the counts are exchanged: receive only, send nothing new
  // Liveness: when this rank last sent to and last heard from each peer.
  std::vector<std::chrono::steady_clock::time_point> last_sent_, last_heard_;
  std::chrono::milliseconds peer_timeout_{10000};
  std::atomic<bool> hurried_{false};

  std::atomic<std::uint64_t> values_sent_{0}, batches_sent_{0}, bytes_sent_{0}, control_sent_{0};
  std::atomic<std::uint64_t> values_received_{0}, batches_received_{0}, bytes_received_{0};
  // The turn: whoever holds it may call MPI and touch the thread's own state above (the thread, or a process
  // in assist; MPI_THREAD_SERIALIZED). Not a std::mutex: a process may switch workers while it holds it (a
  // channel's lock yields), and a std::mutex must be released by the thread that took it.
  std::atomic<bool> turn_{false};
  std::atomic<std::int64_t> last_turn_ns_{0};  // steady clock, when the last turn began
  // The processes that what the turn delivered readies, once the turn has ended (link.hpp), and the
  // streams it saw end. Those count as over (links_over) only after the wake-ups: the link poller, which
  // keeps the rank's runtime active, may end once links_over() holds, and a process readied by this
  // thread only counts as active from its wake-up on (runtime/quiescence.hpp), so ending the poller first
  // could let the rank look deadlocked in between.
  // Nor may a later turn's streams make links_over() hold while an earlier turn's wake-ups are still to
  // come: the thread's turn takes a writer waiting for credits and ends, the poller's turn takes BROKEN for
  // that channel and ends the rank's last stream, and the poller must not end before the thread has woken
  // the writer. So each turn holds links_open_ up by one from before it releases the turn until its
  // wake-ups are done (end_turn, after_wakes). The next holder acquires the turn after the hold was added,
  // so its own decrement comes after the hold in links_open_'s order, and the value reaches 0 only by the
  // last outstanding after_wakes (all read-modify-writes, acq_rel: the poller's acquire load of that 0
  // sees every wake-up before it).
  ForeignWakeList* wakes_ = nullptr;  // the holder's
  std::size_t ended_in_turn_ = 0;
  bool try_take_turn();
  // Ends the turn, holding links_open_ (above); returns the streams it saw end, for after_wakes().
  std::size_t end_turn() {
    wakes_ = nullptr;
    const std::size_t ended = std::exchange(ended_in_turn_, 0);
    links_open_.fetch_add(1, std::memory_order_relaxed);  // published by the release below
    turn_.store(false, std::memory_order_release);
    return ended;
  }
  void after_wakes(std::size_t ended) { links_open_.fetch_sub(ended + 1, std::memory_order_acq_rel); }
  // The turn for a scope: taken (the thread waits for a process's short assist; a process only tries),
  // ended, then the wakes, then the streams that ended.
  struct Turn {
    explicit Turn(Comm& c) : comm(c), held(true) {
      while (!comm.try_take_turn()) std::this_thread::yield();
      comm.wakes_ = &wakes;
    }
    Turn(Comm& c, std::try_to_lock_t) : comm(c), held(comm.try_take_turn()) {
      if (held) comm.wakes_ = &wakes;
    }
    ~Turn() {
      if (!held) return;
      const std::size_t ended = comm.end_turn();
      wakes.wake();
      comm.after_wakes(ended);
    }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    Comm& comm;
    const bool held;
    ForeignWakeList wakes;
  };
  std::atomic<std::size_t> links_open_{0};  // streams not yet over, and a hold per ending turn (links_over)
  std::thread thread_;
};

}  // namespace kpn::distributed
