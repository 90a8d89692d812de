#pragma once
// The processes of a run: the unfinished ones (intrusive lists through Process, so adding and removing
// never allocates) and a record of each finished one for the report.
//
// The table is split in shards, one per worker and one for processes made outside the workers (the
// initial network, a teardown helper). A process joins the shard of the worker that spawns it and leaves
// the same shard when it retires, wherever it runs then; its record of figures goes to that shard too. So
// spawns and exits on different workers take different locks: with one lock for the whole table, two
// workers spawning short processes spent most of their time in its futex (docs/performance.md, spawn).
//
// Each shard's mutex guards its list, its records and the writes of its live count. A worker takes its own shard's at every spawn, and
// the shard of the process it retires; the whole-table walks (for_each, any, had_name, finished_reports:
// the deadlock monitor, cancellation, graph-placing policies, the teardown and the report) take the
// shards' mutexes in index order, never two in another order, and for_each holds all of them at once so
// that what it visits stays alive until `after` returns. Every holder keeps a lock for a short walk at
// most and waits for no other lock inside it but a later shard's (a canceller only try_locks park locks,
// cancel.cpp).

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/process_id.hpp"
#include "runtime/report.hpp"

namespace kpn {

class Process;

class ProcessTable {
 public:
  // `workers` shards for the workers' spawns, and one for everything else.
  explicit ProcessTable(unsigned workers);

  // `p` joins the table. `worker` is the spawning worker's index, or -1 outside the workers.
  void insert(Process& p, int worker);
  // `p` is DONE and off its stack: unlinks it and records its figures. `home` is its policy's home_of.
  void retire(Process& p, int home);
  // Any unfinished process, or nullptr: the teardown unwinds them one by one.
  Process* any();
  // Calls `visit` for every unfinished process, shard by shard, then `after` (if any), all in one hold of
  // the locks: the processes visited stay alive until `after` returns. No order among processes is
  // promised (sort by id for creation order).
  void for_each(const std::function<void(Process&)>& visit, const std::function<void()>& after = {});
  // The processes inserted and not yet retired: exact once every insert and retire has happened before the
  // call (quiescence.hpp), a sum of moments otherwise (each shard's count is read at its own instant).
  std::int64_t live() const noexcept;
  // Processes ever inserted.
  std::uint64_t inserted() const;
  // Whether a process named `name`, or with id `id`, is unfinished or has finished in this run
  // (cancel.cpp's unknown names and ids).
  bool had_name(std::string_view name) const;
  bool had_id(ProcessId id) const;
  // Reports of the finished processes, in id order. `ticks_per_s` converts CPU time.
  std::vector<ProcessReport> finished_reports(double ticks_per_s) const;

 private:
  struct Finished {
    ProcessId id;
    std::string name;
    std::uint64_t cpu_ticks;
    std::uint64_t switches;
    int last_worker;
    int home_worker;
    bool cancelled;
  };
  // A cache line of its own each: the workers' shards are written by different CPUs.
  struct alignas(64) Shard {
    mutable std::mutex mutex;  // guards head and finished, and serialises the writes of live
    Process* head = nullptr;
    // Inserted minus retired here. Written under the mutex (a plain store of its own load, no locked
    // instruction), read without it: atomic for those readers.
    std::atomic<std::int64_t> live{0};
    std::uint64_t inserted = 0;
    // A deque: retiring appends in place, where a vector's growth moved every record so far while the lock
    // was held (a run of 200,000 short processes copies 6 MiB of records that way).
    std::deque<Finished> finished;
  };
  // Whether any process, unfinished or finished, satisfies `match`.
  bool had(const std::function<bool(std::string_view name, ProcessId id)>& match) const;
  // Every shard's lock, in index order.
  std::vector<std::unique_lock<std::mutex>> lock_all() const;

  std::unique_ptr<Shard[]> shards_;  // [0, workers) the workers', [workers] the rest; fixed for the run
  unsigned count_;
};

}  // namespace kpn
