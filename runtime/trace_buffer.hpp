#pragma once
// The events of an execution trace (Chrome trace format, written by trace_writer.hpp) as they are
// recorded: fixed-size records in per-recorder buffers, turned into JSON only after the run.
//
// Who writes what: each worker records into its own TraceBuffer, from its own thread only (no lock, no
// atomic); threads that are not workers (the deadlock monitor, the counter sampler, a host thread that
// wakes a process) record into the run's shared buffer under TraceRecorder's mutex. Buffers are read
// after every worker has been joined (the join orders every write before the read).
//
// Bounded: a buffer holds at most `limit` events (its share of --trace-limit); past that it counts what
// it drops, so a long run's trace stays bounded and says that it was cut.
//
// Compiled in unless the build defines KPN_NO_TRACE (cmake -DKPN_TRACE=OFF), which turns every hook into
// nothing, for measuring what the hooks cost while tracing is off (docs/tracing.md).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/cycle_clock.hpp"
#include "runtime/export.hpp"
#include "runtime/process_id.hpp"

namespace kpn {

#if defined(KPN_NO_TRACE)
inline constexpr bool kTracingCompiledIn = false;
#else
inline constexpr bool kTracingCompiledIn = true;
#endif

enum class TraceKind : std::uint8_t {
  Run,           // a process ran on a worker: ts..ts+dur; subject = process id; reason = why it ended
  Wake,          // the recorder's running process (or thread) readied process `subject`, waiting on `object`
  StealSearch,   // consecutive failed steal attempts: ts..ts+dur, `count` attempts
  Steal,         // a steal from worker `subject` took `count` processes
  Sleep,         // the worker slept (idle, on its futex): ts..ts+dur
  ChannelFill,   // sampled: channel `object` held `count` messages
  Growth,        // Parks' rule: channel `object` grew from `subject` to `count` messages
};

// Why a Run slice ended; the SwitchReason values (process_state.hpp) in the order the writer names them.
enum class TraceRunEnd : std::uint8_t { Yield, LockYield, Park, Exit };

struct TraceEvent {
  std::int64_t ts = 0;   // cycle_clock ticks (TraceBuffer::now)
  std::int64_t dur = 0;  // ticks; slices only
  std::uint64_t subject = 0;
  std::uint64_t count = 0;
  const void* object = nullptr;  // a ChannelView*, resolved to its name after the run (channels outlive it)
  std::uint64_t flow = 0;        // Run: the wake-up that readied it; Wake: the one it starts (0: none)
  TraceKind kind = TraceKind::Run;
  std::uint8_t reason = 0;       // Run: TraceRunEnd; Run ending in Park: + direction << 4
};

class KPN_EXPORT TraceBuffer {
 public:
  // Events are stored in chunks of this many, so that a growing buffer never copies what it holds.
  static constexpr std::size_t kChunkEvents = 4096;

  TraceBuffer(std::size_t limit, std::uint64_t flow_base) : limit_(limit), next_flow_(flow_base) {}

  // Timestamps are cycle_clock ticks (the time-stamp counter: a few nanoseconds to read, no system call),
  // turned into time since the run's start by the writer, with a ratio measured over the whole run.
  static std::int64_t now() noexcept { return static_cast<std::int64_t>(cycle_clock::now()); }

  // Appends `e` unless the buffer is full (then counts it as dropped). Returns whether it was kept. Never
  // throws: out of memory counts as dropped too (hooks run where exceptions may not pass).
  bool add(const TraceEvent& e) noexcept {
    searching_ = false;
    if (size_ >= limit_) {
      ++dropped_;
      return false;
    }
    if (size_ % kChunkEvents == 0) {
      try {
        chunks_.push_back(std::make_unique_for_overwrite<TraceEvent[]>(kChunkEvents));
      } catch (...) {
        ++dropped_;
        return false;
      }
    }
    last_ = &chunks_.back()[size_ % kChunkEvents];
    *last_ = e;
    ++size_;
    return true;
  }

  // A failed steal attempt: extends the search slice if it is the last event, else starts one.
  void steal_attempt_failed(std::int64_t now) noexcept {
    if (searching_) {
      last_->dur = now - last_->ts;
      ++last_->count;
      return;
    }
    searching_ = add({now, 0, 0, 1, nullptr, 0, TraceKind::StealSearch, 0});
  }

  // A fresh id for a flow from a wake-up to the woken process's next run; unique within the run.
  std::uint64_t new_flow() noexcept { return next_flow_++; }

  template <class F>
  void for_each(F&& visit) const {
    for (std::size_t i = 0; i < size_; ++i) visit(chunks_[i / kChunkEvents][i % kChunkEvents]);
  }
  std::size_t size() const noexcept { return size_; }
  std::uint64_t dropped() const noexcept { return dropped_; }

 private:
  std::size_t limit_;
  std::uint64_t next_flow_;
  std::vector<std::unique_ptr<TraceEvent[]>> chunks_;
  std::size_t size_ = 0;
  TraceEvent* last_ = nullptr;
  std::uint64_t dropped_ = 0;
  bool searching_ = false;  // the last event is a search slice that later failed attempts extend
};

// Out of line, so that the policies' steal loops carry only a test of a pointer while tracing is off.
[[gnu::cold]] KPN_EXPORT void trace_steal(TraceBuffer& buffer, int victim, std::size_t taken);

}  // namespace kpn
