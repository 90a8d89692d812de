#pragma once
// One run's execution trace while it is recorded: a TraceBuffer per worker, one shared buffer for every
// other thread, the names of the processes (recorded as they retire, since a process's memory is freed
// then), and the thread that samples channel fill levels. Created by the run when RuntimeOptions::trace
// names a file; written by trace_writer.hpp after the workers have been joined.
//
// Bounds (so a long run's trace stays bounded): each worker buffer and the shared one may hold
// limit / (workers + 1) events; past that they count what they drop. Channel fill levels are sampled every
// sample period, for the first kTraceMaxCounterChannels channels, and recorded only when they changed.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime/process_id.hpp"
#include "runtime/trace_buffer.hpp"

namespace kpn {

class ChannelRegistry;

struct TraceSettings {
  std::string path;        // where the JSON goes
  std::size_t limit = 0;   // events in all, shared out equally among the buffers
  unsigned sample_ms = 1;  // the counter sampler's period
};

class TraceRecorder {
 public:
  // Channels sampled for fill-level counters, at most (a counter track each in the viewer).
  static constexpr std::size_t kMaxCounterChannels = 256;

  TraceRecorder(TraceSettings settings, unsigned workers);
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  const TraceSettings& settings() const noexcept { return settings_; }
  TraceBuffer& worker_buffer(unsigned index) noexcept { return *workers_[index]; }
  const TraceBuffer& worker_buffer(unsigned index) const noexcept { return *workers_[index]; }
  unsigned workers() const noexcept { return static_cast<unsigned>(workers_.size()); }
  static std::int64_t now() noexcept { return TraceBuffer::now(); }
  // Nanoseconds per tick of TraceBuffer::now(), measured from the recorder's creation to this call.
  double ns_per_tick() const noexcept;
  std::int64_t origin() const noexcept { return origin_tick_; }

  // From a thread that is not a worker (or a worker that has no buffer): appends under the mutex.
  void add_shared(const TraceEvent& e);
  // Wake-ups from threads that are not workers: the flow id is drawn under the mutex.
  std::uint64_t add_shared_wake(std::uint64_t woken, const void* channel);
  // An instant event at `ts` (ticks) with a message (a deadlock, a failure), on the runtime's track.
  void add_note(std::int64_t ts, std::string name, std::string message);
  // Remembers a process's name for the writer; any thread.
  void name_process(ProcessId id, const std::string& name);

  // Starts/stops sampling the fill levels of `channels` (their list is read at every sample).
  void start_sampling(const ChannelRegistry& channels);
  void stop_sampling();

  // After the workers have been joined (no recording thread is left).
  struct Note {
    std::int64_t ts;
    std::string name;
    std::string message;
  };
  const TraceBuffer& shared_buffer() const noexcept { return shared_; }
  const std::vector<Note>& notes() const noexcept { return notes_; }
  const std::unordered_map<ProcessId, std::string>& process_names() const noexcept { return names_; }
  std::uint64_t dropped() const noexcept;

 private:
  void sample_loop(const ChannelRegistry& channels);

  const TraceSettings settings_;
  const std::chrono::steady_clock::time_point origin_;  // time 0 of the trace, on both clocks
  const std::int64_t origin_tick_;
  const std::size_t share_;                             // events per buffer
  std::vector<std::unique_ptr<TraceBuffer>> workers_;  // each written only by its worker's thread

  mutable std::mutex mutex_;  // guards shared_, notes_ and names_
  TraceBuffer shared_;
  std::vector<Note> notes_;
  std::unordered_map<ProcessId, std::string> names_;

  std::mutex sampler_mutex_;  // guards stop_sampling_
  std::condition_variable sampler_wake_;
  bool stop_sampling_ = false;
  std::thread sampler_;
};

}  // namespace kpn
