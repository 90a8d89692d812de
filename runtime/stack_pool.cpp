#include "runtime/stack_pool.hpp"

#include "runtime/asan.hpp"

#include <algorithm>
#include <fstream>
#include <new>
#include <optional>
#include <string>

#if defined(KPN_ASAN)
#include <sanitizer/asan_interface.h>
#endif
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/config.hpp"
#include "runtime/log.hpp"
#include "runtime/strided_advice.hpp"

namespace kpn {
namespace {

std::size_t page_size() noexcept {
  static const std::size_t p = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return p;
}

std::size_t read_max_map_count() {
  std::ifstream f("/proc/sys/vm/max_map_count");
  std::size_t n = 65530;
  f >> n;
  return n;
}

std::size_t count_current_mappings() {
  std::ifstream f("/proc/self/maps");
  std::size_t n = 0;
  std::string line;
  while (std::getline(f, line)) ++n;
  return n;
}

// Whether this kernel installs guard pages by madvise: tried once on a scratch mapping.
bool kernel_has_guard_madvise() noexcept {
  const std::size_t page = page_size();
  void* base = ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return false;
  const bool ok = ::madvise(base, page, MADV_GUARD_INSTALL) == 0;
  ::munmap(base, 2 * page);
  return ok;
}

}  // namespace

StackPool::StackPool(unsigned workers) : caches_(workers) {
  static const bool guard_madvise = kernel_has_guard_madvise();
  guard_madvise_ = guard_madvise;
  const std::size_t max = read_max_map_count();
  const std::size_t used = count_current_mappings() + config::kReservedMappings;
  guard_budget_ = max > used ? (max - used) / 2 : 0;
}

StackPool::~StackPool() {
  for (const auto& m : mappings_) ::munmap(m.base, m.length);
}

std::size_t StackPool::round_size(std::size_t usable_size) noexcept {
  const std::size_t p = page_size();
  return (usable_size + p - 1) / p * p;
}

boost::context::stack_context StackPool::allocate(std::size_t usable_size, int worker) {
  const std::size_t size = round_size(usable_size);
  if (worker >= 0 && static_cast<std::size_t>(worker) < caches_.size()) {
    auto& free = caches_[static_cast<std::size_t>(worker)].free;
    for (std::size_t i = free.size(); i-- > 0;) {
      if (free[i].size == size) {
        boost::context::stack_context sc = free[i];
        free[i] = free.back();
        free.pop_back();
        return sc;
      }
    }
  }
  boost::context::stack_context sc;
  TopPages tops;
  {
    std::lock_guard g(mutex_);
    if (take_shared(size, sc)) return sc;
    sc = map_new(size, tops);
  }
  // Each stack's top page is written as soon as its process first runs (the fiber's record lies there):
  // faulting a new slab's top pages in now, in one call or a few, costs less than a page fault each
  // (100,000 processes that park at once on one worker: 27 % less wall, docs/performance-log.md, session 54).
  // Outside the lock, which a slab of 1,024 pages would hold for milliseconds: the slab's other stacks are
  // already on the shared list and may be in use, and populating a page that is present leaves it as it
  // is. Refused (kernels before 6.13), the pages fault as before.
  if (tops.count > 0) advise_strided(tops.first, tops.stride, tops.count, page_size(), MADV_POPULATE_WRITE, false);
  return sc;
}

bool StackPool::take_shared(std::size_t size, boost::context::stack_context& out) {
  for (std::size_t i = shared_free_.size(); i-- > 0;) {
    if (shared_free_[i].size == size) {
      out = shared_free_[i];
      shared_free_[i] = shared_free_.back();
      shared_free_.pop_back();
      return true;
    }
  }
  return false;
}

// Called with mutex_ held.
boost::context::stack_context StackPool::map_new(std::size_t size, TopPages& tops) {
  const std::size_t page = page_size();
  if (guard_madvise_) {
    if (auto sc = map_guarded_slab(size, tops)) return *sc;
  }
  if (guarded_ < guard_budget_) {
    const std::size_t length = size + page;
    void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base != MAP_FAILED) {
      if (::mprotect(base, page, PROT_NONE) == 0) {
        mappings_.push_back({base, length});
        ++guarded_;
        ++stacks_mapped_;
        boost::context::stack_context sc;
        sc.size = size;
        sc.sp = static_cast<char*>(base) + length;  // stacks grow down from the top
        return sc;
      }
      ::munmap(base, length);
    }
    guard_budget_ = guarded_;  // the kernel refused: stop trying guarded stacks
  }
  if (!warned_) {
    warned_ = true;
    log().warn(
        "{} guarded process stacks in use, the most vm.max_map_count allows with headroom; further stacks have "
        "no guard page (raise it with: sysctl -w vm.max_map_count=1048576)",
        guarded_);
  }
  // One slab of unguarded stacks, all but the first go to the shared free list.
  const std::size_t count = config::kUnguardedSlabStacks;
  const std::size_t length = size * count;
  void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    throw std::runtime_error(fmt::format("could not map {} KiB for process stacks ({} stacks of {} KiB): {}",
                                         length / 1024, count, size / 1024, std::strerror(errno)));
  }
  mappings_.push_back({base, length});
  stacks_mapped_ += count;
  for (std::size_t i = 1; i < count; ++i) {
    boost::context::stack_context sc;
    sc.size = size;
    sc.sp = static_cast<char*>(base) + size * (i + 1);
    shared_free_.push_back(sc);
  }
  boost::context::stack_context sc;
  sc.size = size;
  sc.sp = static_cast<char*>(base) + size;
  return sc;
}

// Called with mutex_ held. A slab of stacks with a guard page below each (installed by madvise) in one
// mapping; the first stack is returned, the rest go to the shared free list. Slabs double from
// config::kFirstGuardedSlabStacks up to kMaxGuardedSlabStacks stacks of one size: a run of a few processes
// maps little, a run of 100,000 about a hundred slabs (pages are touched only when used: MAP_NORESERVE).
// Empty when the kernel refuses (the caller then falls back to a mapping per stack).
std::optional<boost::context::stack_context> StackPool::map_guarded_slab(std::size_t size, TopPages& tops) {
  const std::size_t page = page_size();
  std::size_t& next = slab_stacks_[size];
  if (next == 0) next = config::kFirstGuardedSlabStacks;
  const std::size_t count = next;
  const std::size_t stride = size + page;
  const std::size_t length = stride * count;
  void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return std::nullopt;
  char* const bytes = static_cast<char*>(base);
  if (advise_strided(bytes, stride, count, page, MADV_GUARD_INSTALL, true) != count) {
    ::munmap(base, length);
    guard_madvise_ = false;
    return std::nullopt;
  }
  // Its stacks' top pages, for allocate to fault in (at most a slab's unused stacks hold a page each
  // before their turn).
  tops = {bytes + stride - page, stride, count};
  mappings_.push_back({base, length});
  guarded_ += count;
  stacks_mapped_ += count;
  next = std::min(count * 2, config::kMaxGuardedSlabStacks);
  for (std::size_t i = count; i-- > 1;) {
    boost::context::stack_context sc;
    sc.size = size;
    sc.sp = bytes + stride * (i + 1);  // the top: stacks grow down towards their guard page
    shared_free_.push_back(sc);
  }
  boost::context::stack_context sc;
  sc.size = size;
  sc.sp = bytes + stride;
  return sc;
}

void StackPool::deallocate(const boost::context::stack_context& sc, int worker) noexcept {
  try {
    if (worker >= 0 && static_cast<std::size_t>(worker) < caches_.size()) {
      auto& free = caches_[static_cast<std::size_t>(worker)].free;
      if (free.size() < config::kWorkerStackCache) {
        free.push_back(sc);
        return;
      }
    }
    std::lock_guard g(mutex_);
    shared_free_.push_back(sc);
  } catch (...) {
    // Out of memory for the free list: the stack stays mapped and is released with the pool.
  }
}

std::size_t StackPool::guarded_stacks() const {
  std::lock_guard g(mutex_);
  return guarded_;
}

bool StackPool::guards_by_madvise() const {
  std::lock_guard g(mutex_);
  return guard_madvise_;
}

void StackPool::return_cached_stacks() {
  std::lock_guard g(mutex_);
  for (auto& cache : caches_) {
    shared_free_.insert(shared_free_.end(), cache.free.begin(), cache.free.end());
    cache.free.clear();
  }
}

std::size_t StackPool::stacks_mapped() const {
  std::lock_guard g(mutex_);
  return stacks_mapped_;
}

std::size_t StackPool::mappings() const {
  std::lock_guard g(mutex_);
  return mappings_.size();
}

}  // namespace kpn
