#include "runtime/stop_state.hpp"

#include "runtime/log.hpp"

namespace kpn {

void StopState::fail(std::unique_ptr<RunError> error) {
  {
    std::lock_guard g(mutex_);
    if (!failure_) failure_ = std::move(error);
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
