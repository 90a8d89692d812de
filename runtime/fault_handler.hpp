#pragma once
// Stack overflow in a process: the guard page below its stack faults, and this SIGSEGV handler, running on
// an alternate signal stack (the faulting stack is full), names the process and its stack size and says
// how to give it more, then lets the default action end the program. A fault that is not a process stack
// overflow goes to whatever handler was installed before (a sanitizer's, say) or the default.

namespace kpn {

// Installs the handler unless it is installed already (thread-safe; Runtime calls it).
void install_fault_handler();

// An alternate signal stack for the calling thread, for as long as the object lives.
class AltSignalStack {
 public:
  AltSignalStack();
  ~AltSignalStack();
  AltSignalStack(const AltSignalStack&) = delete;
  AltSignalStack& operator=(const AltSignalStack&) = delete;

 private:
  void* memory_ = nullptr;
  bool installed_ = false;
};

}  // namespace kpn
