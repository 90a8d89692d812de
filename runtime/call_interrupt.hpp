#pragma once
// The signal that interrupts a thread's system call when the network stops: a pool thread's
// (blocking_pool.hpp), so that an interruptible blocking call (one whose function takes a std::stop_token,
// blocking_call.hpp) blocked in read(2), write(2), poll(2) and the like returns EINTR and sees its token's
// stop; and a worker's whose process is blocked in one, so that the process gets to its next blocking point
// and the stopped run ends (worker_exits.hpp).
//
// SIGURG, as Go uses it to preempt goroutines: its default action is to ignore it, so one that arrives
// anywhere else does nothing. kpn takes it only if the program has not: the first interruptible call
// installs a handler that does nothing, without SA_RESTART (so that the interrupted call fails with EINTR
// instead of being restarted), if SIGURG's action is still the default. If the program has its own action
// for SIGURG, kpn sends none, and an interruptible call sees its stop through its token alone. The handler
// runs on the thread's alternate signal stack where it has one (SA_ONSTACK; every worker has one,
// fault_handler.hpp), so a signal that lands in a process never needs room on the process's own stack.

#include <csignal>

namespace kpn {

inline constexpr int kCallInterruptSignal = SIGURG;

// Installs the handler at the first call (thread-safe); true if kpn's handler is SIGURG's action now, that
// is if sending the signal is ours to do (a program may install its own action later: asked each time).
bool call_interrupt_signal_ready() noexcept;

// Unblocks the signal in the calling thread: the run's threads that may be sent it (pool threads, workers)
// call it first, as the program may have blocked it in the thread that runs the network, whose mask they
// inherit.
void unblock_call_interrupt_signal() noexcept;

}  // namespace kpn
