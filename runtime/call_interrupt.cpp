#include "runtime/call_interrupt.hpp"

#include <csignal>
#include <mutex>

#include <pthread.h>

namespace kpn {
namespace {

// Interrupts the system call the receiving thread is blocked in, and nothing else: the interrupted call
// returns EINTR (the action has no SA_RESTART) and its loop looks at the call's stop token.
void interrupt_handler(int) noexcept {}

}  // namespace

bool call_interrupt_signal_ready() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (sigaction(kCallInterruptSignal, nullptr, &current) != 0) return;
    const bool is_default = (current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_DFL;
    if (!is_default) return;  // the program's own action: not ours to trigger
    struct sigaction action {};
    action.sa_handler = interrupt_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_ONSTACK;
    (void)sigaction(kCallInterruptSignal, &action, nullptr);
  });
  // Looked at again each time: a program may install its own action after the first call.
  struct sigaction now {};
  return sigaction(kCallInterruptSignal, nullptr, &now) == 0 && (now.sa_flags & SA_SIGINFO) == 0 &&
         now.sa_handler == interrupt_handler;
}

void unblock_call_interrupt_signal() noexcept {
  sigset_t interrupt;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, kCallInterruptSignal);
  pthread_sigmask(SIG_UNBLOCK, &interrupt, nullptr);
}

}  // namespace kpn
