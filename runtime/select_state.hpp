#pragma once
// A process's part in kpn::select (multi_wait.hpp has the protocol): the wait in progress and who wins it.

#include <atomic>
#include <cstddef>

namespace kpn {

class BusyWaitMutex;
struct MultiWait;

struct SelectState {
  // The wait in progress, set before the process publishes itself in several slots and cleared after it
  // has taken itself out of all of them; `claimed` decides which of the wakers that find it in a slot
  // readies it (the first compare-exchange wins). Both are reset by the process while it holds every lock
  // of the wait, and read by wakers under one of them.
  std::atomic<const MultiWait*> wait{nullptr};
  std::atomic<bool> claimed{false};
  // The locks the worker releases after the switch (Process::release_after_switch_ is null then); they
  // live in the select's frame, which lasts until the process has taken every one of them again.
  BusyWaitMutex* const* release_many = nullptr;
  std::size_t release_many_count = 0;
};

}  // namespace kpn
