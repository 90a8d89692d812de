#pragma once
// The processes of a run: the unfinished ones (an intrusive list through Process, so adding and removing
// never allocates) and a record of each finished one for the report.
//
// One mutex guards the list and the records. It is taken on every spawn and exit, by the deadlock monitor
// while it lists blocked processes, and by graph-placing policies while they copy or re-home processes;
// every holder keeps it for a short walk at most and waits for no other lock inside it (a canceller only
// try_locks park locks, cancel.cpp).

#include <cstdint>
#include <deque>
#include <functional>
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
  void insert(Process& p);
  // `p` is DONE and off its stack: unlinks it and records its figures. `home` is its policy's home_of.
  void retire(Process& p, int home);
  // Any unfinished process, or nullptr: the teardown unwinds them one by one.
  Process* any();
  // Calls `visit` for every unfinished process, newest first, then `after` (if any), all in one hold of
  // the lock: the processes visited stay alive until `after` returns.
  void for_each(const std::function<void(Process&)>& visit, const std::function<void()>& after = {});
  // Whether a process named `name` is unfinished or has finished in this run (cancel.cpp's unknown names).
  bool had_name(std::string_view name) const;
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
  mutable std::mutex mutex_;  // guards everything below
  Process* head_ = nullptr;
  // A deque: retiring appends in place, where a vector's growth moved every record so far while the lock
  // was held (a run of 200,000 short processes copies 6 MiB of records that way).
  std::deque<Finished> finished_;
};

}  // namespace kpn
