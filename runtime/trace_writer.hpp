#pragma once
// Writes a recorded trace (trace_recorder.hpp) as Chrome trace-event JSON, the format ui.perfetto.dev and
// chrome://tracing open. One process ("pid" 1) for the run; one track ("tid") per worker and one for the
// runtime (the monitor, the sampler, host threads). What each recorded event becomes:
//   a process's run       "X" slice, category "run", named by the process, on its worker's track;
//                         args: id, how it ended (yield, lock, park, exit) and, for a park, the channel;
//   a park                "i" event, category "block", at the end of that slice, naming the channel;
//   a wake-up             "i" event, category "wake", on the waker's track, naming the process and channel,
//                         and a flow ("s" -> "f") to the woken process's next run slice;
//   failed steal attempts "X" slice, category "steal", named "steal attempts", with their number;
//   a steal               "i" event, category "steal", naming the victim worker and the processes taken;
//   a sleeping worker     "X" slice, category "idle", named "sleep";
//   channel fill levels   "C" counters named "channel NAME" (sampled);
//   Parks' growth         "i" event, category "deadlock", on the runtime track;
//   a deadlock or failure "i" event, category "deadlock" or "failure", with the message.
// The run itself is one "X" slice, category "network", on the runtime track: every other slice lies in it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/channel_view.hpp"

namespace kpn {

class TraceRecorder;

struct TraceRunInfo {
  std::string scheduler;
  std::vector<int> pus;  // per worker
  std::int64_t start = 0;  // TraceBuffer::now() ticks
  std::int64_t end = 0;
};

struct TraceResult {
  std::string path;
  std::uint64_t events = 0;   // JSON events written
  std::uint64_t dropped = 0;  // recorded events that did not fit in --trace-limit
  std::string error;          // why the file could not be written ("" if it was)
};

// Never throws for a file that cannot be written: the error is in the result.
TraceResult write_trace(const TraceRecorder& trace, const std::vector<std::shared_ptr<ChannelView>>& channels,
                        const TraceRunInfo& run);

}  // namespace kpn
