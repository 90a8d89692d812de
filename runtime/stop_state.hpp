#pragma once
// Whether a run is stopping, and why: the one flag every blocking point and every worker loop reads, and
// the first failure, which decides what Runtime::run throws.
//
// The flag only ever goes from false to true. A store with release and loads with acquire are enough:
// whoever sees `stopping` also sees the failure recorded before it (fail() records, then sets the flag).

#include <atomic>
#include <memory>
#include <mutex>

#include "runtime/errors.hpp"

namespace kpn {

class StopState {
 public:
  bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }
  void request_stop() noexcept {
    stopping_.store(true, std::memory_order_release);
    if (hook_ != nullptr) hook_(hook_context_);
  }
  // Called (with `context`) by every request_stop, after the flag is set: it wakes sleeping workers
  // (idle_workers.hpp). Set once, before any worker starts; must be async-signal-safe and idempotent.
  using StopHook = void (*)(void* context) noexcept;
  void on_stop(StopHook hook, void* context) noexcept {
    hook_ = hook;
    hook_context_ = context;
  }
  // Stops the run from outside; async-signal-safe (no lock, no allocation).
  void interrupt() noexcept {
    interrupted_.store(true, std::memory_order_release);
    request_stop();
  }
  bool interrupted() const noexcept { return interrupted_.load(std::memory_order_acquire); }

  // Records `error` if it is the first failure of the run and no interrupt came before it, then stops the
  // run.
  void fail(std::unique_ptr<RunError> error);
  // `process` threw `error`: the run fails with ProcessFailed naming it.
  void process_failed(const std::string& process, std::exception_ptr error);
  // After every worker has stopped: the failure to throw (the first failure, or Interrupted where the
  // interrupt came before any), or nullptr if the run succeeded.
  std::unique_ptr<RunError> take_failure();

 private:
  std::atomic<bool> stopping_{false};
  StopHook hook_ = nullptr;
  void* hook_context_ = nullptr;
  std::atomic<bool> interrupted_{false};
  std::mutex mutex_;                   // guards failure_
  std::unique_ptr<RunError> failure_;  // the first failure wins
};

}  // namespace kpn
