#pragma once
// The worker's side of timed waits: firing the timers that are due (the protocol is in timer_queue.hpp and
// blocking.hpp's park_until). Called by a worker between two processes when TimerQueue::due() says so.

#include <cstdint>

namespace kpn {

struct RunShared;

// Readies every process whose timer is due and whose park lock is free; the rest stay queued for the next
// scheduling point. Must run on one of the run's workers, outside any process.
void fire_due_timers(RunShared& run);

// Parks the calling process until `deadline_ns` (steady_ns); the body of kpn::sleep_until.
void park_sleeping(std::int64_t deadline_ns);

}  // namespace kpn
