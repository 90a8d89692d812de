#pragma once
// The benchmarks of kpn-bench. Each measures one configuration: `reps` repetitions, every one on a fresh
// kpn::Runtime.

#include <string>

#include "measure.hpp"
#include "runtime/config.hpp"

namespace kpn_bench {

struct Options {
  std::string scheduler = kpn::config::kDefaultScheduler;
  int reps = 5;
  double t0 = 0;  // iterations of kpn::work per CPU second for work-ceiling; 0: measured
};

// The building blocks of a switch on this machine, without kpn: rdtsc, a lock round, a locked add, a
// Boost.Context switch pair, steady_clock::now, sched_yield, a cache line's round trip between two CPUs.
Result bench_primitives(const Options& o);
// Two processes on one worker calling kpn::yield() in turn: ns per yield (one process-to-process switch,
// through the worker).
Result bench_yield(const Options& o);
// Two processes bouncing a message over two capacity-1 channels: ns per round trip, on one worker, on two
// workers under the chosen policy, or on two workers with the processes held apart (no stealing).
enum class Placement { OneWorker, TwoWorkersPolicy, TwoWorkersApart };
Result bench_pingpong(const Options& o, Placement placement);
// A parent spawning trivial children: ns per spawned-and-finished process.
Result bench_spawn(const Options& o, unsigned cpus);
// The duplicate-name check of a 100,000-process network, by keys and by sorting whole names: ms per check.
Result bench_names(const Options& o);
// What kpn-run does with a file before the run, for a pipeline of 100,000 stages: parse, resolve, build and
// free, ms each.
Result bench_from_file(const Options& o);
// One process sleeping 1 ms 10,000 times on `cpus` workers: median, p99 and max lateness in microseconds.
Result bench_timers(const Options& o, unsigned cpus);
// 100,000 processes in a line of capacity-1 channels passing one message: wall time and peak RSS, each
// repetition in a fresh program (kpn-bench --chain-child).
Result bench_chain(const Options& o, unsigned cpus);
// Scatter-gather's work (64 x 2000 messages of 1 and 10 us of kpn::work) on `cpus` pinned threads without
// any runtime: the W/wall this machine allows, against which the runner's scatter-gather is read.
Result bench_work_ceiling(const Options& o, unsigned cpus);
// The same messages through lock-guarded cells between two pinned threads, with no runtime: the W/wall a
// program that moves scatter-gather's messages between two CPUs as kpn must (a lock round per channel
// operation, the value in the channel's line) reaches on this machine.
Result bench_exchange_ceiling(const Options& o);
// Pinned threads that only read the clock, one per CPU: the share of each CPU's time the machine takes away
// (gaps over 10 us between two reads), how often, and the longest gap. What a two-worker figure cannot beat.
Result bench_host_stalls(const Options& o, unsigned cpus);
// How a T0 taken as a run takes it (the median of its timed rounds) compares with the work loop's speed in the
// 0.6 s that follow, and how the fastest of the same rounds would have: the calibration's bias on this machine.
Result bench_t0_bias(const Options& o);
// The body of that fresh program: runs the chain once and prints "build_s run_s total_s peak_rss_mib".
int chain_child(unsigned cpus, const std::string& scheduler);

}  // namespace kpn_bench
