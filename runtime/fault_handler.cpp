#include "runtime/fault_handler.hpp"

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <unistd.h>

#include "runtime/current.hpp"
#include "runtime/process.hpp"

namespace kpn {
namespace {

constexpr std::size_t kAltStackSize = 64 * 1024;
// A frame larger than the guard page can jump past it; faults this far below a stack still count as its
// overflow.
constexpr std::uintptr_t kOverflowReach = 256 * 1024;

struct sigaction g_previous_segv;
struct sigaction g_previous_bus;

// Only async-signal-safe calls from here on: write(2), no allocation, no locks.
void write_str(const char* s) {
  const std::size_t n = std::strlen(s);
  ssize_t rc = ::write(STDERR_FILENO, s, n);
  (void)rc;
}

void write_uint(std::uint64_t v) {
  char buf[24];
  int i = sizeof buf;
  buf[--i] = '\0';
  do {
    buf[--i] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0 && i > 0);
  write_str(buf + i);
}

void chain(int sig, siginfo_t* info, void* uctx) {
  const struct sigaction& prev = sig == SIGBUS ? g_previous_bus : g_previous_segv;
  if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(sig, info, uctx);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
    return;
  }
  // Default action: returning re-executes the faulting instruction, which now ends the program.
  ::signal(sig, SIG_DFL);
}

void on_fault(int sig, siginfo_t* info, void* uctx) {
  Process* p = current_process();
  if (p != nullptr && p->stack().sp != nullptr) {
    const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    const auto top = reinterpret_cast<std::uintptr_t>(p->stack().sp);
    const std::uintptr_t bottom = top - p->stack().size;
    if (addr < bottom && addr + kOverflowReach >= bottom) {
      write_str("kpn: process '");
      write_str(p->name().c_str());
      write_str("' overflowed its stack of ");
      write_uint(p->stack().size);
      write_str(" bytes; give it a larger stack (YAML: stack_size, C++: ProcessOptions::stack_size)\n");
      ::signal(sig, SIG_DFL);
      return;
    }
  }
  chain(sig, info, uctx);
}

}  // namespace

void install_fault_handler() {
  // Installed again whenever someone (a test framework, another library) replaced it since; the handler
  // it replaces is kept and called for faults that are not a process's stack overflow.
  static std::mutex mutex;
  std::lock_guard g(mutex);
  struct sigaction current {};
  ::sigaction(SIGSEGV, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == on_fault) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSEGV, &sa, &g_previous_segv);
  ::sigaction(SIGBUS, &sa, &g_previous_bus);
}

AltSignalStack::AltSignalStack() {
  stack_t current{};
  // Keep a stack someone else (a sanitizer) installed.
  if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0) return;
  memory_ = std::malloc(kAltStackSize);
  if (memory_ == nullptr) return;
  stack_t ss{};
  ss.ss_sp = memory_;
  ss.ss_size = kAltStackSize;
  ss.ss_flags = 0;
  installed_ = ::sigaltstack(&ss, nullptr) == 0;
}

AltSignalStack::~AltSignalStack() {
  if (installed_) {
    stack_t ss{};
    ss.ss_flags = SS_DISABLE;
    ::sigaltstack(&ss, nullptr);
  }
  std::free(memory_);
}

}  // namespace kpn
