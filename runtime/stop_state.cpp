#include "runtime/stop_state.hpp"

#include "runtime/log.hpp"

namespace kpn {

void StopState::fail(std::unique_ptr<RunError> error) {
  {
    std::lock_guard g(mutex_);
    // An interrupt that came first is the run's end, not a failure its stop brought about (a process whose
    // system call the stop interrupted, worker_exits.hpp, may throw on the EINTR).
    if (!failure_ && !interrupted()) {
      failure_ = std::move(error);
    } else {
      log().debug("after the run's end was decided: {}", error->what());
    }
  }
  request_stop();
}

void StopState::process_failed(const std::string& process, std::exception_ptr error) {
  std::string message = "unknown exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
  }
  log().debug("process '{}' failed: {}", process, message);
  fail(std::make_unique<ProcessFailed>(process, std::move(message), std::move(error)));
}

std::unique_ptr<RunError> StopState::take_failure() {
  std::lock_guard g(mutex_);
  if (!failure_ && interrupted()) failure_ = std::make_unique<Interrupted>();
  return std::move(failure_);
}

}  // namespace kpn
