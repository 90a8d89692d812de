#pragma once
// The runtime's own threads (workers, the deadlock monitor, the trace sampler, the blocking pool's threads,
// which workers start, and the pool's nudger, which blocks them itself) block the asynchronous signals a program is sent (SIGINT, SIGTERM, SIGHUP,
// SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGPIPE), so that the kernel delivers them to one of the
// program's own threads, the one in Runtime::run among them, and never interrupts a worker in the middle of
// its loop or its futex sleep. Under ThreadSanitizer this is also what makes a signal arrive at all: TSan
// defers a signal to the receiving thread's next intercepted call, which a worker running processes or
// sleeping on a raw futex may never make. Synchronous signals (SIGSEGV and the like: the stack-overflow
// report) and the profiling signals stay unblocked, and so does SIGURG, which the run sends its own
// threads to interrupt a system call when it stops (call_interrupt.hpp).

#include <csignal>

namespace kpn {

// Blocks those signals in the calling thread while it lives; threads started meanwhile inherit the mask.
class AsyncSignalsBlocked {
 public:
  AsyncSignalsBlocked() noexcept;
  ~AsyncSignalsBlocked();
  AsyncSignalsBlocked(const AsyncSignalsBlocked&) = delete;
  AsyncSignalsBlocked& operator=(const AsyncSignalsBlocked&) = delete;

 private:
  sigset_t saved_;
};

}  // namespace kpn
