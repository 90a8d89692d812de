#pragma once
// SIGINT and SIGTERM stop kpn-run's run politely (Runtime::interrupt), whenever they come: before the run
// has started, during it, or while the report is written. A second signal ends the program at once.

#include <memory>

namespace kpn {
class Runtime;
}

namespace kpn_run {

// While it lives, SIGINT and SIGTERM stop `rt`'s run (its forwarder thread is started before the handlers,
// so a signal finds it waiting); afterwards they are back to their defaults. init_stop_signals() first.
class StopSignals {
 public:
  explicit StopSignals(kpn::Runtime& rt);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  class Forwarder;
  std::unique_ptr<Forwarder> forwarder_;
};

// Prepares what the handlers post to, once, before any StopSignals; false (errno says why) if it cannot.
bool init_stop_signals() noexcept;
// The stop signal that came (SIGINT or SIGTERM), or 0.
int stop_signal() noexcept;

}  // namespace kpn_run
