#pragma once
// Charges processes for their CPU time without reading the clock at every switch.
//
// Reading the clock (the time-stamp counter, cycle_clock.hpp) costs about 10 ns on the machines we measure
// (rdtsc is microcoded: 25 to 40 cycles), and a direct switch between two processes costs 25 to 70 ns in
// all: timing every run was a seventh of a capacity-1 pipeline's time on one worker. So a run is timed only
// when it is sampled, and a timed run of length t is charged t * 2^shift, where 1 / 2^shift was its chance
// of being timed. Each run's chance is fixed before the run begins, from what earlier runs of the process
// showed, so the charge is an unbiased estimate of the process's time (Horvitz and Thompson), and exact
// for every process whose runs are long:
// - the first config::kExactRuns runs of a process are all timed (shift 0), so a process that runs a few
//   times is charged exactly and a short-lived estimate never swings by a whole sampled run;
// - after that, a process whose last timed run was shorter than config::kSampledRunUs is timed one run in
//   2^config::kRunSampleShift (chosen by a per-worker random stream, so that no periodic pattern of short
//   and long runs can line up with the sampling); one whose last timed run was longer, every run. A long
//   run pays two clock reads for microseconds of work; short runs pay one random number each.
// A run is timed from the moment its worker enters it to the moment it switches out: the policy's work
// between runs is the worker's (busy time in the report), not any process's, and does not depend on
// whether the run before was timed too.
//
// State: `shift_` and `began_` describe the run in progress on this worker; a process's own sampling
// state (Process::cpu_sample_shift_) is written only by the worker running it, as its cpu_ticks_. Owner
// thread only, like the WorkerThread that holds it.

#include <cstdint>

#include "runtime/config.hpp"
#include "runtime/cycle_clock.hpp"
#include "runtime/process.hpp"

namespace kpn {

class CpuSampler {
 public:
  CpuSampler(std::uint64_t short_run_ticks, std::uint32_t seed) noexcept
      : short_run_ticks_(short_run_ticks), rng_(seed | 1u) {}

  // A run of `p` begins on this worker (its switches() already counts it).
  void begin(Process& p) noexcept {
    const unsigned shift = p.switches_ <= config::kExactRuns ? 0u : p.cpu_sample_shift_;
    if (shift != 0 && (next_random() & ((1u << shift) - 1)) != 0) {
      timed_ = false;
      return;
    }
    timed_ = true;
    shift_ = static_cast<std::uint8_t>(shift);
    began_ = cycle_clock::now();
  }

  // The run of `p` that began last on this worker ends: charged if it was timed.
  void end(Process& p) noexcept {
    if (!timed_) return;
    const std::uint64_t ran = cycle_clock::now() - began_;
    p.cpu_ticks_.store(p.cpu_ticks_.load(std::memory_order_relaxed) + (ran << shift_), std::memory_order_relaxed);
    p.cpu_sample_shift_ = ran < short_run_ticks_ ? static_cast<std::uint8_t>(config::kRunSampleShift) : 0;
    timed_ = false;
  }

 private:
  std::uint32_t next_random() noexcept {  // xorshift32
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 17;
    rng_ ^= rng_ << 5;
    return rng_;
  }

  const std::uint64_t short_run_ticks_;
  std::uint32_t rng_;
  std::uint64_t began_ = 0;  // when the timed run in progress began
  bool timed_ = false;       // the run in progress is timed
  std::uint8_t shift_ = 0;   // the run in progress is charged ran << shift_
};

}  // namespace kpn
