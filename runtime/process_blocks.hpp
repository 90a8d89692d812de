#pragma once
// The memory of retired processes, kept by a worker for the processes it spawns next.
//
// A process's record (Process, about 400 bytes) is allocated at its spawn and freed at its retirement.
// Spawned in bursts, more than glibc's thread cache holds of one size are freed at once, and each further
// free and the malloc that reuses it take the allocator's slow paths (about 300 instructions a process,
// docs/performance.md, spawn). A worker keeps up to config::kWorkerProcessBlocks freed records instead and
// hands them to its next spawns. Every block is one size (RunShared allocates only Process records here)
// and came from ::operator new; the worker's thread alone touches its cache, so no lock. Off under
// AddressSanitizer, whose use-after-free check needs every freed record to go back to it.

#include <cstddef>
#include <new>
#include <vector>

#include "runtime/config.hpp"
#include "runtime/sanitizers.hpp"

namespace kpn {

class ProcessBlocks {
 public:
  ProcessBlocks() = default;
  ProcessBlocks(const ProcessBlocks&) = delete;
  ProcessBlocks& operator=(const ProcessBlocks&) = delete;
  ~ProcessBlocks() {
    for (void* b : free_) ::operator delete(b);
  }

  // A kept block, or nullptr.
  void* take() noexcept {
    if (free_.empty()) return nullptr;
    void* b = free_.back();
    free_.pop_back();
    return b;
  }
  // Keeps `block` (of the one size), or returns false: the caller frees it.
  bool keep(void* block) noexcept {
    if (free_.size() >= kCapacity) return false;
    if (free_.capacity() == 0) {
      try {
        free_.reserve(kCapacity);
      } catch (const std::bad_alloc&) {
        return false;
      }
    }
    free_.push_back(block);
    return true;
  }

 private:
#if defined(KPN_ASAN)
  static constexpr std::size_t kCapacity = 0;
#else
  static constexpr std::size_t kCapacity = config::kWorkerProcessBlocks;
#endif
  std::vector<void*> free_;
};

}  // namespace kpn
