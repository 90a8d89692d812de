#pragma once
// Marks the timed region of a benchmark for callgrind, so that instruction counts per operation can be read
// off without start-up, warm-up and the run report:
//
//   valgrind --tool=callgrind build/bin/kpn-bench --only yield --reps 1
//   -> callgrind.out.<pid>.1 ("timed") holds the timed region only; divide its total by the operations.
//
// Outside valgrind a client request is a handful of register moves; it runs once per repetition, outside
// the measured loop. Without the valgrind headers the marks compile to nothing.

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define KPN_BENCH_TIMED_BEGIN() CALLGRIND_ZERO_STATS
#define KPN_BENCH_TIMED_END() CALLGRIND_DUMP_STATS_AT("timed")
#else
#define KPN_BENCH_TIMED_BEGIN() ((void)0)
#define KPN_BENCH_TIMED_END() ((void)0)
#endif
