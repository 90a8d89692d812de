#include "tools/runner/stop_signals.hpp"

#include <semaphore.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <thread>

#include "runtime/runtime.hpp"

namespace kpn_run {
namespace {

// The runtime a SIGINT or SIGTERM should stop, and the signal that came. Runtime::interrupt() acts only on
// a run in progress, so a signal that lands between installing the handler and the start of the run
// would be lost: the handler also posts g_signal_posted, and a forwarder thread (StopSignals::Forwarder)
// repeats the interrupt until run() returns.
std::atomic<kpn::Runtime*> g_runtime{nullptr};
volatile std::sig_atomic_t g_signal = 0;
sem_t g_signal_posted;

extern "C" void on_stop_signal(int sig) {
  g_signal = sig;
  sem_post(&g_signal_posted);  // async-signal-safe
  if (kpn::Runtime* rt = g_runtime.load()) rt->interrupt();
  // A second signal ends the program at once (a process that never blocks cannot be stopped politely).
  std::signal(sig, SIG_DFL);
}

}  // namespace

// Waits (without polling) for a stop signal, then interrupts the runtime every millisecond until the run
// has returned: whichever of the signal and the start of the run comes first, the run is stopped.
class StopSignals::Forwarder {
 public:
  explicit Forwarder(kpn::Runtime& rt) : thread_([this, &rt] {
    while (sem_wait(&g_signal_posted) != 0 && errno == EINTR) {
    }
    while (!done_.load()) {
      if (g_signal != 0) rt.interrupt();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }) {}
  ~Forwarder() {
    done_.store(true);
    sem_post(&g_signal_posted);
    thread_.join();
  }
  Forwarder(const Forwarder&) = delete;
  Forwarder& operator=(const Forwarder&) = delete;

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

StopSignals::StopSignals(kpn::Runtime& rt) : forwarder_(std::make_unique<Forwarder>(rt)) {
  g_runtime.store(&rt);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

StopSignals::~StopSignals() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_runtime.store(nullptr);
}

bool init_stop_signals() noexcept { return sem_init(&g_signal_posted, 0, 0) == 0; }

int stop_signal() noexcept { return static_cast<int>(g_signal); }

}  // namespace kpn_run
