#pragma once
// The signal that interrupts a pool thread's system call when the network stops (blocking_pool.hpp), so
// that an interruptible blocking call (one whose function takes a std::stop_token, blocking_call.hpp)
// blocked in read(2), write(2), poll(2) and the like returns EINTR and sees its token's stop.
//
// SIGURG, as Go uses it to preempt goroutines: its default action is to ignore it, so one that arrives
// anywhere else does nothing. kpn takes it only if the program has not: the first interruptible call
// installs a handler that does nothing, without SA_RESTART (so that the interrupted call fails with EINTR
// instead of being restarted), if SIGURG's action is still the default. If the program has its own action
// for SIGURG, kpn sends none, and an interruptible call sees its stop through its token alone.

#include <csignal>

namespace kpn {

inline constexpr int kCallInterruptSignal = SIGURG;

// Installs the handler at the first call (thread-safe); true if kpn's handler is SIGURG's action now, that
// is if sending the signal is ours to do (a program may install its own action later: asked each time).
bool call_interrupt_signal_ready() noexcept;

}  // namespace kpn
