#pragma once
// Every tuning knob of the runtime in one place, each with the reason for its value.

#include <cstddef>
#include <cstdint>

namespace kpn::config {

// Default stack of a process. Stacks are mapped lazily, so this is address space, not memory: a process
// touches one or two 4 KiB pages unless it recurses or keeps large buffers on its stack. 64 KiB leaves room
// for formatting, exceptions and a few levels of user calls; raise it per process (ProcessOptions) for deep
// recursion.
inline constexpr std::size_t kDefaultStackSize = 64 * 1024;

// Smallest stack we accept: the fiber control record, the process entry frame and an exception unwind need
// a few KiB; below this a process would overflow before running user code.
inline constexpr std::size_t kMinStackSize = 16 * 1024;

// Largest stack we accept; a typo of an extra digit should be an error, not 16 GiB of address space per process.
inline constexpr std::size_t kMaxStackSize = 1024ull * 1024 * 1024;

// Each guarded stack costs two kernel memory mappings (stack + guard page). The kernel caps mappings per
// program (vm.max_map_count, 65530 by default), and malloc, thread stacks and shared libraries need some too.
// The stack pool keeps this many mappings free for them; past the budget it hands out stacks without a guard
// page (and warns once) instead of making mmap fail for the whole program.
inline constexpr std::size_t kReservedMappings = 8192;

// Where the kernel installs guard pages by madvise (stack_pool.hpp), stacks of one size are carved from
// slabs that double from the first count to the largest: one mapping per slab.
inline constexpr std::size_t kFirstGuardedSlabStacks = 16;
inline constexpr std::size_t kMaxGuardedSlabStacks = 1024;

// Stacks without a guard page are carved from slabs of this many stacks: one mapping per slab.
inline constexpr std::size_t kUnguardedSlabStacks = 64;

// Free stacks a worker keeps for itself before handing them to the shared pool; keeps spawn and exit off the
// shared pool's mutex in steady state.
inline constexpr std::size_t kWorkerStackCache = 64;
// Freed process records a worker keeps for its next spawns (process_blocks.hpp): about 400 bytes each.
inline constexpr std::size_t kWorkerProcessBlocks = 256;
// Process ids a worker reserves from its run's counter at a time (Worker::reserve_ids). A run's ids are
// unique, but those a worker spawns after another worker's are not always larger, and up to this many less
// one per worker go unused.
inline constexpr std::uint64_t kWorkerIdBlock = 64;

// Spins (with a pause instruction) on a contended run-queue lock before the kernel thread calls sched_yield:
// the holder runs on another CPU and holds the lock for tens of nanoseconds, unless its thread was preempted
// (more workers than CPUs), where only yielding the CPU lets it finish.
inline constexpr int kSpinsBeforeYield = 64;

// How often the deadlock monitor's thread looks for a local deadlock (a cycle of blocked processes while
// others run; global deadlocks are found at once without it). Workers never stop for it; a scan walks the
// process table and takes each blocked process's channel lock twice, microseconds for a few hundred
// processes, and the period stretches to 50 times the last scan's duration on huge networks.
inline constexpr int kLocalDeadlockScanMs = 200;

// The policy a Runtime and kpn-run use when none is named.
inline constexpr const char* kDefaultScheduler = "handoff";

// Most workers a Runtime accepts: more than this is a typo, not a test.
inline constexpr unsigned kMaxCpus = 4096;

// Initial slots of a run-queue's ring buffer; it doubles when full and never shrinks.
inline constexpr std::size_t kRunQueueInitialCapacity = 256;

// The `handoff` policy (schedulers/handoff.hpp). A worker runs a process readied by its own running process
// next, but at most this many times in a row before it takes the head of its queue (so two processes that
// keep waking each other cannot starve the rest).
inline constexpr unsigned kRunnextStreak = 32;
// A `handoff` worker's queue hands out processes that have run before those that have never run, but after
// this many of the first kind in a row while fresh ones wait, a fresh one (schedulers/run_queue.hpp).
inline constexpr unsigned kFreshAfter = 32;
// Futile starts back off (schedulers/handoff.hpp). After this many processes in a row that a worker started
// parked in their first run having readied nobody, within kFutileRunUs of their start, it puts off its next
// start while another worker runs: first for kStartBackoffFirstUs, doubling at each further futile start up
// to kStartBackoffMaxUs. A worker that puts off a start sleeps in slices of kStartBackoffSliceUs, between
// which it looks for work that has run before.
inline constexpr unsigned kFutileStarts = 8;
// A first run that lasted this long before it parked did work: not a futile start, whatever it readied.
inline constexpr unsigned kFutileRunUs = 20;
inline constexpr unsigned kStartBackoffFirstUs = 50;
inline constexpr unsigned kStartBackoffMaxUs = 1000;
inline constexpr unsigned kStartBackoffSliceUs = 50;
// How long an idle searcher looks at the other workers' queues (a short pause between rounds) before it
// sleeps: long enough to see a stale hand-off twice, short enough that a worker woken for a hand-off its
// waker runs itself costs little CPU.
inline constexpr unsigned kSearchUs = 10;
// How long a worker that has announced its sleep spins on its own word before it waits on a futex
// (runtime/idle_workers.hpp): a wake-up within it costs the waker one CAS and the sleeper no trip through
// the kernel, and the spin touches no other worker's cache lines.
inline constexpr unsigned kIdleSpinUs = 10;
// The longest such spin: a worker whose wake-ups keep coming within this and keep bringing work spins up to
// twice its last sleep before it waits on the futex (the adaptive spin of runtime/idle_workers.hpp).
inline constexpr unsigned kIdleSpinMaxUs = 200;
// Naps (runtime/idle_workers.hpp, for policies that ask: handoff): a worker that sleeps while another
// worker is awake waits on its futex at most this long at first, then twice as long after each nap that
// ended with nothing to take, up to kIdleNapMaxMs; then it looks for a hand-off left waiting behind a
// computation that nobody was woken for.
inline constexpr unsigned kIdleNapUs = 1000;
inline constexpr unsigned kIdleNapMaxMs = 100;
// A thief takes a process from a victim's next slot only if it sat there this long with no context switch
// on the victim (Go waits 3 us in runqgrab): a ping-pong pair switches every few hundred nanoseconds and
// keeps its hand-offs.
inline constexpr unsigned kStaleNextUs = 4;

// CPU time of processes (cpu_sampler.hpp): the first kExactRuns runs of a process are all timed; after
// them, a process whose last timed run was shorter than kSampledRunUs is timed one run in
// 2^kRunSampleShift, and charged 2^kRunSampleShift times what that run took.
inline constexpr std::uint64_t kExactRuns = 64;
inline constexpr unsigned kSampledRunUs = 2;
inline constexpr unsigned kRunSampleShift = 4;

// Most processes one steal takes (it takes half the victim's queue, up to this).
inline constexpr std::size_t kMaxStealBatch = 128;
// How many of a victim's oldest queued processes a `handoff` thief looks at for the ones that belong
// with it (a stream's neighbours, schedulers/handoff.hpp). Each look reads two lines of a process that
// may sit in another CPU's cache, under the victim's queue lock; a pipeline's queues hold a few.
inline constexpr std::size_t kNeighbourScan = 4;

// Execution traces (RuntimeOptions::trace). Recorded events a trace keeps at most, shared out equally
// among the workers and the runtime's own track; past that each counts what it dropped. A recorded event
// becomes one to three JSON events (a run slice that ends in a park also gives a block event and the end
// of a wake-up's flow), about 230 bytes in all: 300,000 make a file of about 70 MB, which ui.perfetto.dev
// opens in a few seconds (it refuses JSON past a few hundred MB).
inline constexpr std::size_t kTraceLimit = 300'000;
// How often channel fill levels are sampled into a traced run's counters.
inline constexpr unsigned kTraceSampleMs = 1;
// Process priorities (ProcessOptions::priority): a small range, so that a policy can keep one FIFO per level.
inline constexpr int kMinPriority = 0;
inline constexpr int kMaxPriority = 7;
inline constexpr int kDefaultPriority = 0;

// Most kernel threads of a run's blocking pool (RuntimeOptions::blocking_threads, blocking_pool.hpp). The
// pool grows on demand, one thread per call in flight, so this bounds only what a network with many
// simultaneous blocking calls creates: past it, calls queue. An idle thread costs a stack mapping (address
// space, a few touched pages), so 64 is cheap, and more I/O in flight at once than that rarely helps.
inline constexpr unsigned kBlockingThreads = 64;
// Largest limit accepted: more is a typo, not a configuration.
inline constexpr unsigned kMaxBlockingThreads = 4096;

// How long after a run begins to stop a worker may stay in its process before the run sends its thread the
// call-interrupt signal (worker_exits.hpp), and how often it sends it again while the worker stays. Long
// enough that a process on its way to its next blocking point gets there without one; short enough that
// Ctrl-C on a process blocked in write(2) ends the run at once to a person.
inline constexpr unsigned kStuckWorkerGraceMs = 10;
inline constexpr unsigned kStuckWorkerNudgeMs = 10;

}  // namespace kpn::config
