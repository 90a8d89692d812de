#pragma once
// The benchmarks of kpn-bench. Each runs `reps` repetitions, every one on a fresh kpn::Runtime, and
// returns one Result per configuration it measured.

#include <string>
#include <vector>

#include "measure.hpp"

namespace kpn_bench {

struct Options {
  std::string scheduler = "ws-last";
  int reps = 5;
};

// Two processes on one worker calling kpn::yield() in turn: ns per yield (one process-to-process switch,
// through the worker).
std::vector<Result> bench_yield(const Options& o);
// Two processes bouncing a message over two capacity-1 channels: ns per round trip, on one worker, on two
// workers under the chosen policy, and on two workers with the processes held apart (no stealing).
std::vector<Result> bench_pingpong(const Options& o);
// A parent spawning trivial children: ns per spawned-and-finished process.
std::vector<Result> bench_spawn(const Options& o);
// 100,000 processes in a line of capacity-1 channels passing one message: wall time and peak RSS, each
// repetition in a forked child.
std::vector<Result> bench_chain(const Options& o);

}  // namespace kpn_bench
