#include "runtime/errors.hpp"

#include <fmt/format.h>

namespace kpn {

std::string_view to_string(ProcessState s) noexcept {
  switch (s) {
    case ProcessState::Ready: return "ready";
    case ProcessState::Running: return "running";
    case ProcessState::Blocked: return "blocked";
    case ProcessState::Done: return "done";
  }
  return "?";
}

std::string_view to_string(WaitDirection d) noexcept {
  switch (d) {
    case WaitDirection::Read: return "read";
    case WaitDirection::Write: return "write";
    case WaitDirection::None: return "none";
  }
  return "?";
}

ProcessFailed::ProcessFailed(std::string process, std::string message, std::exception_ptr cause)
    : RunError(fmt::format("process '{}' failed: {}", process, message), nullptr),
      process_(std::move(process)),
      message_(std::move(message)),
      cause_(std::move(cause)) {}

namespace {
std::string describe(const std::vector<DeadlockError::Blocked>& blocked, const std::vector<std::string>& cycle,
                     const std::string& note, bool local) {
  std::string s = local ? fmt::format("local deadlock: {} processes wait for each other while others still run",
                                      blocked.size())
                        : fmt::format("deadlock: all {} remaining processes are blocked", blocked.size());
  for (const auto& b : blocked) {
    if (b.direction == WaitDirection::None) {
      s += fmt::format("\n  '{}' is blocked", b.process);
      continue;
    }
    s += fmt::format("\n  '{}' waits to {} channel '{}'", b.process, to_string(b.direction), b.channel);
    if (!b.counterpart.empty()) {
      s += fmt::format(" ({} by '{}')", b.direction == WaitDirection::Read ? "written" : "read", b.counterpart);
    }
  }
  if (!cycle.empty()) {
    s += "\n  cycle: ";
    for (const auto& p : cycle) s += "'" + p + "' -> ";
    s += "'" + cycle.front() + "'";
  }
  if (!note.empty()) s += "\n  " + note;
  return s;
}
}  // namespace

DeadlockError::DeadlockError(std::vector<Blocked> blocked, std::vector<std::string> cycle, std::string note, bool local)
    : RunError(describe(blocked, cycle, note, local), nullptr),
      local_(local),
      blocked_(std::move(blocked)),
      cycle_(std::move(cycle)) {}

}  // namespace kpn
