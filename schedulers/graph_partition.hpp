#pragma once
// gp: graph-partitioning placement (Nornir's second policy). Instead of stealing, every process has a home
// worker and runs only there: an unblocked or yielding process goes to the back of its home worker's
// queue, and an idle worker never takes another worker's processes.
//
// Why the back for an unblocked process (first in, first out), where work stealing puts it in front. A
// writer whose reader waits hands it the value directly (channels/channel.hpp), so the reader is ready
// after each message; run at once (the front), it reads one message and blocks again, and every stage of
// a pipeline runs for one message per switch. Behind what is already queued it finds the channel full
// when it runs. Measured in session 27 (2-vCPU VM, medians of 3 to 5, alternated): a pipeline of 8
// stages without work on 1 worker 0.29 -> 0.21 s (1.44 M -> 0.80 M switches), on 2 workers 0.22 ->
// 0.16 s; a ring of 16 nodes and 8 tokens under gp-static on 2 workers 0.31 -> 0.23 s without work and
// 0.59 -> 0.44 s at 2 us a message.
//
// Placement:
// - The initial network is partitioned before it starts (processes as vertices, channels as edges, unit
//   weights; partition.hpp) into one part per worker. A process spawned later lives with its spawner.
//   A process the user pinned (ProcessOptions::home_worker, YAML `cpu`) stays on that worker (modulo the
//   worker count), always.
// - Repartitioning (gp, not gp-static): the load has drifted when a worker was idle for more than
//   Tuning::idle_share of a window of Tuning::window_ms and, at the window's end, another worker has
//   queued work (work it could have done). The idle worker then (it has nothing better to do)
//   repartitions the live graph with measured weights (vertex = CPU time so far, edge = messages so far),
//   relabels the new parts to move as few processes as possible, and changes the homes of the others.
//   A process migrates at its next unblock or yield; one already queued runs once more where it is.
//   No other worker stops: they only meet the repartitioner on the process registry's lock (while it
//   copies the process list and while it writes the new homes) and on each channel's lock (for one
//   snapshot). Processes move only if the current placement is unbalanced beyond Tuning::tolerance under
//   the measured weights and the new one is clearly cheaper (partition::placement_cost, Tuning::min_gain),
//   so noise in the measurements or METIS drawing a similar partition differently never shuffles
//   processes back and forth; and a
//   repartition that moved nothing doubles the wait before the next one (up to Tuning::max_interval_ms),
//   so a load that no placement can balance does not keep a worker partitioning.
//
// Idle workers sleep (runtime/idle_workers.hpp), as `local`'s do: a worker's work only ever shows in its
// own queue, so it sleeps until that queue fills (spinning briefly on the queue's size, then on a futex),
// and the push that fills it from another worker wakes it (queue_at). Under gp a sleeping worker also
// naps while another worker is awake (IdleWorkers::nap_while_others_run): it wakes after 1 ms, then after
// doubling naps up to 100 ms, to judge its window and repartition if the load has drifted, since nothing
// else would wake it while the others hold all the work. gp-static never naps: no look of an idle worker
// can change its placement.
//
// Concurrency: a process's home lives in its policy slot (Process::policy_data<Home>), read and written
// with relaxed std::atomic_ref: any value read is a valid worker, and the queue's lock orders the process
// itself. Each worker's queue is gp's own (run_queue.hpp). The statistics and
// the back-off are written only by the one worker holding `repartitioning_` (acquire/release hand-over
// from one holder to the next), and read after every worker has stopped.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/scheduler.hpp"
#include "schedulers/run_queue.hpp"

namespace kpn {

// gp's knobs (defaults are what `--scheduler gp` uses).
struct GpTuning {
  bool repartition = true;        // false: keep the initial partition (gp-static)
  double window_ms = 10;          // a worker judges its load over windows this long...
  double idle_share = 0.25;       // ...and one idle this much of a window, while another worker has
                                  // queued work at its end, says the load has drifted
  double min_interval_ms = 50;    // between repartitions; doubles while they move nothing...
  double max_interval_ms = 2000;  // ...up to this
  double tolerance = 0.10;        // allowed imbalance over the best achievable (partition.hpp)
  double min_gain = 0.05;         // move only if the placement gets this much cheaper (partition.hpp)
};

class KPN_EXPORT GraphPartitionScheduler final : public Scheduler {
 public:
  using Tuning = GpTuning;

  explicit GraphPartitionScheduler(Tuning tuning = {}) : tuning_(tuning) {}

  std::string_view name() const noexcept override { return tuning_.repartition ? "gp" : "gp-static"; }
  void start(SchedulerContext& context) override;
  void on_network(const ProcessGraph& network) override;
  bool wants_network() const noexcept override { return true; }
  void on_spawn(Process& p, Worker* spawner) override;
  void on_unblock(Process& p, Worker* waker) override;
  void on_yield(Process& p, Worker& w) override;
  Process* pick_next(Worker& w) override;
  Process* pick_local(Worker& w) override;
  void on_idle(Worker& w) override;
  int home_of(Process& p) const noexcept override;
  std::vector<std::pair<std::string, double>> stats() const override;

  // Moves every live process to the worker `choose` returns for it (a valid index; effective at its next
  // unblock or yield), as a repartition does, holding the process table's lock. Any thread, while a run is
  // on; for tools that place processes by hand and tests that move them at random.
  void rehome_live_processes(const std::function<int(Process&)>& choose);

 private:
  // gp's data in each process's policy slot: its home worker plus one (0: not placed yet).
  struct Home {
    int plus_one;
  };
  struct alignas(64) Slot {
    // Its worker sleeps through IdleWorkers::sleep(index, has_work) and never confirms a wake-up
    // (IdleWorkers::woke_to_work), so its spin stays kIdleSpinUs: two processes partitioned apart that take
    // turns every 100 us would otherwise keep both workers spinning, two CPUs for one CPU's work (1.1
    // against 1.9 CPU-seconds per second of wall, at 5 % more wall; the measure is in docs/schedulers.md).
    RunQueue queue;
  };
  // Per worker, written only by that worker's thread.
  struct alignas(64) IdleClock {
    std::int64_t window_start_ns = 0;
    std::int64_t idle_ns = 0;        // idle time in the current window, spells that ended
    std::int64_t idle_since_ns = 0;  // start of the current idle spell; 0: not idle
  };
  struct Stats {
    double initial_ms = 0;           // partitioning the initial network
    std::uint64_t repartitions = 0;
    std::uint64_t migrations = 0;    // home changes
    double partition_ms_total = 0;   // whole repartitions: snapshot, partition, relabel, apply
    double partition_ms_max = 0;
    double registry_hold_us_max = 0; // the longest the repartitioner held the registry lock to apply homes
    std::uint64_t metis_rejected = 0;  // METIS partitions replaced by a better balanced greedy one
    std::uint64_t metis_skipped = 0;   // partitions made without METIS: one process outweighed a share
  };

  void set_home(Process& p, int home) noexcept;
  // home_of, with an unplaced process counted on worker 0.
  std::size_t placed_home(Process& p) const noexcept;
  RunQueue& queue(std::size_t worker) noexcept { return slots_[worker].queue; }
  // Wakes worker `w` after a push by `by` (null: no worker) that filled its empty queue, unless `by` is `w`
  // (awake, since it is pushing). Only the filling push needs to: after it the worker is awake or being
  // woken, and it cannot sleep again before its queue is empty, which means this process was taken.
  void wake_if_filled(std::size_t w, bool filled, const Worker* by);
  // Judges the calling idle worker's window and repartitions if the load has drifted (the header).
  void check_drift(Worker& w);
  bool others_have_work(const Worker& w) const noexcept;
  void repartition(std::int64_t now_ns);

  const Tuning tuning_;
  SchedulerContext* context_ = nullptr;
  std::vector<Worker*> workers_;
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<IdleClock[]> idle_;
  IdleWorkers* sleepers_ = nullptr;
  std::vector<int> initial_homes_;  // for the initial network, in spawn order; used before workers start
  std::size_t next_initial_ = 0;

  alignas(64) std::atomic<bool> repartitioning_{false};
  std::atomic<std::int64_t> next_repartition_ns_{0};
  double interval_ms_ = 0;               // guarded by repartitioning_
  Stats stats_;                          // guarded by repartitioning_ (or single-threaded before the run)
};

}  // namespace kpn
