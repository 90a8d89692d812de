#pragma once
// Finds deadlocks and resolves the artificial ones (Parks' rule, deadlock.hpp), in two ways:
//
// Global: the worker whose decrement makes the quiescence count zero calls on_quiescent() (quiescence.hpp).
// Nothing runs, nothing is queued, and nothing can change, so one look at the blocked processes decides:
// the network finished, a channel grows, or the run fails with a DeadlockError.
//
// Local: (among channels registered with the run: the network's and those its processes create) a cycle
// of blocked processes, each waiting for the next, while others still run. A thread of the
// monitor's own looks for one every scan period (it sleeps in between; workers never pause for it, so a
// worker inside a long computation does not delay it). It works on snapshots taken while the network runs,
// which it may trust only for a cycle, and only after seeing it twice:
//   1. List the blocked processes (process table) and snapshot each one's channel (under the channel's
//      lock): who waits in the channel's slot, with its park count, and who is at the other end.
//   2. Find a cycle among them (each member waits on a channel whose other end is the next member).
//   3. Snapshot each member's channel again. Confirm that every member is still in its slot with the same
//      park count, and the other ends are unchanged.
// Why a confirmed cycle is a deadlock: a waiter leaves its slot only when someone takes it out under the
// channel lock, and parking again raises its count before the lock is released; both looks are under that
// lock. So each member i sat in its slot throughout [s_i, t_i] (its first and second look), and every first
// look precedes every second look, so at the moment of the last first look all members were parked at
// once. Then no member can wake another (each waits for one that waits), and nobody else can: a channel has
// one writer and one reader, bound to the processes recorded at its ends (handing an endpoint over clears
// the record, which breaks the cycle in step 2). The cycle stays blocked forever, so acting on it is safe.
//
// A process in a select (multi_wait.hpp) is one entry per channel at quiescence, and left out of the local
// scan (deadlock_monitor.cpp says why). A host thread that cancels processes (Run::cancel) holds the
// analysis mutex while it wakes them, so the quiescent analysis never sees a process wake under it.
//
// The two paths never analyse at the same time (analysis_mutex_): a channel grown by the scan wakes a
// writer, and a quiescence decision taken meanwhile would act on stale state; on_quiescent re-checks that
// the count is still zero once it holds the mutex.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/deadlock.hpp"
#include "runtime/quiescence.hpp"

namespace kpn {

struct RunShared;

class DeadlockMonitor final : public QuiescenceListener {
 public:
  // max_capacity: the largest capacity Parks' rule may grow a channel to. scan_ms: the local scan's
  // period, 0 for none.
  DeadlockMonitor(RunShared& run, std::size_t max_capacity, unsigned scan_ms);
  ~DeadlockMonitor();
  DeadlockMonitor(const DeadlockMonitor&) = delete;
  DeadlockMonitor& operator=(const DeadlockMonitor&) = delete;

  // Starts and stops the local scan's thread (no-op without a period).
  void start_scanning();
  void stop_scanning();

  void on_quiescent() override;
  // Holds off both analyses while a thread outside the network wakes processes (Run::cancel).
  std::unique_lock<std::mutex> exclusive() { return std::unique_lock(analysis_mutex_); }
  // Artificial deadlocks resolved so far; read after the run.
  std::uint64_t resolved() const;

 private:
  void scan_loop();
  void scan_once();
  // The blocked processes in creation order, each with its channel's snapshot. `alive`: the channels that
  // may be looked at (a local scan, while processes run); nullptr at quiescence, when all may.
  std::vector<BlockedProcess> collect_blocked(const std::vector<std::shared_ptr<ChannelView>>* alive);
  // Step 3 above for the members `cycle` of `first`.
  bool confirm_cycle(const std::vector<BlockedProcess>& first, const std::vector<std::size_t>& cycle);
  // Parks' rule over `blocked` (or the subset `only`): grows a channel and returns true, or returns false
  // with the reason in `refused`. Called with analysis_mutex_ held.
  bool resolve_artificial(std::vector<BlockedProcess>& blocked, const std::vector<std::size_t>* only,
                          std::string& refused);

  RunShared& run_;
  const std::size_t max_capacity_;
  const unsigned scan_ms_;

  mutable std::mutex analysis_mutex_;  // one analysis at a time; guards resolved_
  std::uint64_t resolved_ = 0;

  std::mutex sleep_mutex_;             // guards stop_ (the scan thread's sleep)
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kpn
