#pragma once
// A worker as a policy sees it: its index among the run's workers, the processing unit it is pinned to,
// its counters, and a cheap random-number stream. Everything else about the kernel thread (its loop, the
// switch, the handshake after a switch) belongs to the mechanism (worker_thread.hpp) and is not a
// policy's business; a policy keeps its own per-worker state (queues, clocks) indexed by index().

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "runtime/process_blocks.hpp"
#include "runtime/process_id.hpp"
#include "runtime/single_writer.hpp"
#include "runtime/trace_buffer.hpp"

namespace kpn {

// Written only by the owning worker's thread (add_single_writer: no locked instruction), read by
// anyone at any time; hence atomics without contention. Cache-line aligned so that workers never share a line.
struct alignas(64) WorkerCounters {
  std::atomic<std::uint64_t> context_switches{0};
  std::atomic<std::uint64_t> steal_attempts{0};
  std::atomic<std::uint64_t> steals{0};
  std::atomic<std::uint64_t> busy_ticks{0};
  std::atomic<std::uint64_t> idle_ticks{0};
};

class alignas(64) Worker {
 public:
  // index: position among the run's workers; -1 for the runtime's teardown helper, which only unwinds.
  Worker(int index, int pu) noexcept
      : index_(index), pu_(pu), rng_(0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(index + 2)) {}
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  int index() const noexcept { return index_; }
  int pu() const noexcept { return pu_; }
  WorkerCounters& counters() noexcept { return counters_; }
  const WorkerCounters& counters() const noexcept { return counters_; }
  // A steal attempt at worker `victim` that took `taken` processes (0: it failed): counted in the report
  // and, when the run is traced, recorded. Owner thread only; every policy that steals reports through it.
  void note_steal(int victim, std::size_t taken) {
    add_single_writer(counters_.steal_attempts);
    if (taken > 0) add_single_writer(counters_.steals);
    if constexpr (kTracingCompiledIn) {
      if (trace_ != nullptr) [[unlikely]] trace_steal(*trace_, victim, taken);
    }
  }
  // This worker's trace buffer while the run is traced, else nullptr. Set before the worker's thread starts.
  TraceBuffer* trace() const noexcept { return trace_; }
  void attach_trace(TraceBuffer* buffer) noexcept { trace_ = buffer; }

  // The decrements of the run's active count (quiescence.hpp) this worker still owes: one for each
  // process that parked or exited on it since it last paid. A park or an exit owes its decrement instead
  // of making it; the next wake-up or spawn this worker makes settles one debt instead of incrementing,
  // and the worker pays what is left before it looks for work elsewhere or sleeps
  // (WorkerThread::thread_main). The count then exceeds the true one by what is owed, never falls below
  // it, so it reaches 0 only when nothing runs, nothing is queued and nothing is owed: quiescence is never
  // declared early, only after the last worker with a debt has run out of work. A hand-off (a process
  // readies another and parks), and a process that spawns a short one, then cost no locked instruction on
  // the shared count, instead of two. Owner thread only (the teardown helper owes nothing).
  void owe_deactivation() noexcept { ++owed_deactivations_; }
  bool settle_owed_deactivation() noexcept {
    if (owed_deactivations_ == 0) return false;
    --owed_deactivations_;
    return true;
  }
  std::int64_t take_owed_deactivations() noexcept { return std::exchange(owed_deactivations_, 0); }

  // Ids for the processes this worker spawns, reserved from the run's counter a block at a time
  // (RunShared::spawn), so that workers spawning at once do not pass the counter's line between them.
  // Owner thread only. Empty after a refill of 0 ids: the next take refills.
  bool has_reserved_id() const noexcept { return next_reserved_id_ != reserved_ids_end_; }
  ProcessId take_reserved_id() noexcept { return next_reserved_id_++; }
  void reserve_ids(ProcessId first, ProcessId count) noexcept {
    next_reserved_id_ = first;
    reserved_ids_end_ = first + count;
  }

  // Freed process records for this worker's next spawns (process_blocks.hpp). Owner thread only.
  ProcessBlocks& process_blocks() noexcept { return process_blocks_; }

  // A cheap per-worker random number (xorshift64*), for victim selection. Owner thread only.
  std::uint64_t next_random() noexcept {
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    return rng_ * 0x2545F4914F6CDD1Dull;
  }

 private:
  const int index_;
  const int pu_;
  std::uint64_t rng_;
  std::int64_t owed_deactivations_ = 0;
  TraceBuffer* trace_ = nullptr;
  WorkerCounters counters_;
  // Spawn's, after the lines the switch and the counters use.
  ProcessId next_reserved_id_ = 0;
  ProcessId reserved_ids_end_ = 0;
  ProcessBlocks process_blocks_;
};

}  // namespace kpn
