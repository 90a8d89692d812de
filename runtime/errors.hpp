#pragma once
// The ways a run fails. Each carries the report of the run up to the failure.

#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/process_state.hpp"
#include "runtime/report.hpp"

namespace kpn {

class KPN_EXPORT RunError : public std::runtime_error {
 public:
  RunError(const std::string& what, std::shared_ptr<const RunReport> report)
      : std::runtime_error(what), report_(std::move(report)) {}
  // The report of the run up to the failure; never null once thrown by Runtime::run.
  const std::shared_ptr<const RunReport>& report() const noexcept { return report_; }
  void set_report(std::shared_ptr<const RunReport> r) { report_ = std::move(r); }

 private:
  std::shared_ptr<const RunReport> report_;
};

// A process threw. The network was stopped and every other process unwound.
class KPN_EXPORT ProcessFailed : public RunError {
 public:
  ProcessFailed(std::string process, std::string message, std::exception_ptr cause);
  const std::string& process() const noexcept { return process_; }
  const std::string& message() const noexcept { return message_; }
  // The exception the process threw, for rethrow_exception.
  const std::exception_ptr& cause() const noexcept { return cause_; }

 private:
  std::string process_;
  std::string message_;
  std::exception_ptr cause_;
};

// The run was stopped from outside (Runtime::interrupt, typically from a SIGINT handler).
class KPN_EXPORT Interrupted : public RunError {
 public:
  Interrupted() : RunError("interrupted", nullptr) {}
};

// Every remaining process was blocked and none could be woken.
class KPN_EXPORT DeadlockError : public RunError {
 public:
  struct Blocked {
    std::string process;
    std::string channel;
    WaitDirection direction = WaitDirection::None;
    std::string counterpart;  // the process at the channel's other end, if known
  };
  // `cycle`: processes that wait for each other in a ring (each for the next, the last for the first),
  // empty if none was found. `note`: an extra line, such as why the deadlock could not be resolved.
  // `local`: the listed processes wait for each other while others were still running.
  DeadlockError(std::vector<Blocked> blocked, std::vector<std::string> cycle, std::string note, bool local = false);
  const std::vector<Blocked>& blocked() const noexcept { return blocked_; }
  const std::vector<std::string>& cycle() const noexcept { return cycle_; }
  bool local() const noexcept { return local_; }

 private:
  bool local_ = false;
  std::vector<Blocked> blocked_;
  std::vector<std::string> cycle_;
};

}  // namespace kpn
