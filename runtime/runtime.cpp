#include "runtime/runtime.hpp"

#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "runtime/asymmetric_fence.hpp"
#include "runtime/fault_handler.hpp"
#include "runtime/log.hpp"
#include "runtime/pinning.hpp"
#include "runtime/run.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/stack_pool.hpp"

namespace kpn {

Runtime::Runtime(RuntimeOptions options) : Runtime(options, make_scheduler(options.scheduler, options.scheduler_options)) {}

Runtime::Runtime(RuntimeOptions options, std::unique_ptr<Scheduler> scheduler)
    : topology_(std::make_unique<CpuTopology>()), scheduler_(std::move(scheduler)) {
  if (!scheduler_) throw std::invalid_argument("Runtime: no scheduler");
  scheduler_name_ = std::string(scheduler_->name());
  install_fault_handler();
  prepare_asymmetric_fences();  // parks pay only compiler barriers for cancellation (wait_record.hpp)
  if (options.max_capacity == 0) throw std::invalid_argument("max_capacity must be at least 1");
  max_capacity_ = options.max_capacity;
  scan_ms_ = options.local_deadlock_scan_ms;
  if (options.blocking_threads == 0 || options.blocking_threads > config::kMaxBlockingThreads) {
    throw std::invalid_argument(fmt::format("blocking_threads = {}: expected 1 to {}", options.blocking_threads,
                                            config::kMaxBlockingThreads));
  }
  blocking_threads_ = options.blocking_threads;
  if (!options.trace.empty()) {
    if (!kTracingCompiledIn) throw std::invalid_argument("trace: this kpn was built without tracing (cmake -DKPN_TRACE=OFF)");
    if (options.trace_limit == 0) throw std::invalid_argument("trace_limit must be at least 1");
    if (options.trace_sample_ms == 0) throw std::invalid_argument("trace_sample_ms must be at least 1");
    trace_ = TraceSettings{options.trace, options.trace_limit, options.trace_sample_ms};
  }
  place_workers(options);
  stacks_ = std::make_unique<StackPool>(static_cast<unsigned>(pus_.size()));
}

Runtime::~Runtime() = default;

void Runtime::place_workers(const RuntimeOptions& options) {
  const std::vector<int>& pus = topology_->allowed_pus();
  const unsigned n = options.cpus == 0 ? static_cast<unsigned>(pus.size()) : options.cpus;
  if (n > config::kMaxCpus) throw std::invalid_argument(fmt::format("cpus = {} is more than {}", n, config::kMaxCpus));
  static std::atomic<bool> warned{false};  // once per program: tests oversubscribe on purpose, often
  if (n > pus.size() && !warned.exchange(true)) {
    log().warn("{} workers requested but only {} processing units are available: workers will share them (said once per program)", n,
               pus.size());
  }
  pin_ = options.pin;
  const std::vector<int> order = topology_->pin_order(pin_);
  pus_.clear();
  for (unsigned i = 0; i < n; ++i) pus_.push_back(order.empty() ? -1 : order[i % order.size()]);
  topology_report_ = {std::string(to_string(pin_)), topology_->packages(), topology_->numa_nodes(), topology_->cores(),
                      topology_->total_pus(), pus_};
}

void Runtime::interrupt() noexcept {
  // Remembered first, so that an interrupt arriving before run() has published its run (a SIGINT right
  // after the handler was installed) still stops it: run() looks at the flag after publishing.
  pending_interrupt_.store(true, std::memory_order_seq_cst);
  // The run lives on run()'s stack. Counted in before looking, so that run(), which unpublishes the run
  // and then waits for the count to drop to zero before the run is destroyed, never frees it under us;
  // sequentially consistent, so either we see the run unpublished or run() sees us counted in.
  interrupters_.fetch_add(1, std::memory_order_seq_cst);
  if (Run* run = current_run_.load(std::memory_order_seq_cst)) run->interrupt();
  interrupters_.fetch_sub(1, std::memory_order_seq_cst);
}

template <class F>
std::size_t Runtime::with_run(const char* what, F f) {
  // Counted in as interrupt() is, so that run() does not destroy the run under us.
  interrupters_.fetch_add(1, std::memory_order_seq_cst);
  struct Out {
    std::atomic<int>& n;
    ~Out() { n.fetch_sub(1, std::memory_order_seq_cst); }
  } out{interrupters_};
  Run* run = current_run_.load(std::memory_order_seq_cst);
  if (run == nullptr) throw std::logic_error(fmt::format("{}: no network is running", what));
  return f(*run);
}

std::int64_t Runtime::live_processes() noexcept {
  // Counted in as interrupt() is, so that run() does not destroy the run under us.
  interrupters_.fetch_add(1, std::memory_order_seq_cst);
  const Run* run = current_run_.load(std::memory_order_seq_cst);
  const std::int64_t live = run != nullptr ? run->live_processes() : 0;
  interrupters_.fetch_sub(1, std::memory_order_seq_cst);
  return live;
}

std::size_t Runtime::cancel(std::string_view process_name) {
  return with_run("Runtime::cancel", [&](Run& r) { return r.cancel(0, process_name, 0, "Runtime::cancel"); });
}
std::size_t Runtime::cancel(ProcessId id) {
  return with_run("Runtime::cancel", [&](Run& r) { return r.cancel(1, {}, id, "Runtime::cancel"); });
}
std::size_t Runtime::cancel_group(std::string_view group) {
  return with_run("Runtime::cancel_group", [&](Run& r) { return r.cancel(2, group, 0, "Runtime::cancel_group"); });
}

RunReport Runtime::run(NetworkSpec& network) {
  if (running_) throw std::logic_error("Runtime::run: this runtime is already running a network");
  running_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{running_};
  // Unpinned workers have no place in the topology: policies are told there is none.
  Run run(*scheduler_, *stacks_, pus_, pin_ == PinMode::none ? nullptr : topology_.get(), topology_report_, max_capacity_, scan_ms_,
          trace_ ? &*trace_ : nullptr);
  run.set_blocking_threads(blocking_threads_);
  current_run_.store(&run, std::memory_order_seq_cst);
  // Destroyed before `run`: unpublishes it and waits out any interrupt() that may still be using it (one
  // atomic store away from done; a signal handler on this very thread finishes before we resume).
  struct Unpublish {
    std::atomic<Run*>& slot;
    std::atomic<bool>& pending;
    std::atomic<int>& interrupters;
    ~Unpublish() {
      slot.store(nullptr, std::memory_order_seq_cst);
      while (interrupters.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
      pending.store(false, std::memory_order_relaxed);  // it interrupted this run, not the next
    }
  } unpublish{current_run_, pending_interrupt_, interrupters_};
  // Sequentially consistent with interrupt(): either it sees the run published, or this sees its flag.
  if (pending_interrupt_.load(std::memory_order_seq_cst)) run.interrupt();
  return run.execute(network);
}

}  // namespace kpn
