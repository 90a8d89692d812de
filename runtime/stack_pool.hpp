#pragma once
// Process stacks: mapped once, reused for the run's whole life, with a guard page below each.
//
// Every stack has a guard page below it, so an overflow faults instead of corrupting a neighbour. Where
// the kernel has MADV_GUARD_INSTALL (Linux 6.13), stacks are carved from slabs, one mapping each, and the
// guards installed inside it (map_guarded_slab): mapping 100,000 stacks then costs about a hundred mmap
// calls instead of 100,000 mmap and mprotect pairs, and unmapping them at the end as few munmap calls. The
// guards of a slab, and then its stacks' top pages (faulted in ahead of their first use), are advised in
// batches of process_madvise (strided_advice.hpp), a few calls a slab instead of one per stack.
// Elsewhere a guarded stack is its own mapping with its lowest page PROT_NONE; each costs two kernel
// mappings and the kernel caps mappings per program (vm.max_map_count, 65530 by default on Debian), so the
// pool guards stacks up to a budget computed at start (config::kReservedMappings left for everything else)
// and past it carves unguarded stacks from slabs, warning once. Freed stacks go to the freeing worker's
// cache (no lock) and overflow to a shared list under a mutex; nothing is unmapped before the pool dies.

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <boost/context/stack_context.hpp>

namespace kpn {

class StackPool {
 public:
  explicit StackPool(unsigned workers);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // Binds the calling kernel thread to cache `cache` of `pool` while it lives (a worker's thread, for its
  // whole loop), so PooledStack finds the cache without asking the worker.
  class ThreadBinding {
   public:
    ThreadBinding(const StackPool& pool, int cache) noexcept;
    ~ThreadBinding();
    ThreadBinding(const ThreadBinding&) = delete;
    ThreadBinding& operator=(const ThreadBinding&) = delete;

   private:
    const StackPool* previous_pool_;
    int previous_cache_;
  };

  // `worker` is the calling worker's index, or -1 from a thread that is not a worker.
  boost::context::stack_context allocate(std::size_t usable_size, int worker);
  void deallocate(const boost::context::stack_context& sc, int worker) noexcept;

  // Usable size a request is rounded to (whole pages).
  static std::size_t round_size(std::size_t usable_size) noexcept;
  std::size_t guarded_stacks() const;
  // Whether guard pages are installed by madvise inside slabs (Linux 6.13+), and how many mappings the
  // pool holds: what the creation benchmarks and the tests look at.
  bool guards_by_madvise() const;
  std::size_t mappings() const;
  // Stacks mapped since the pool was made (in use or free), whatever the scheme.
  std::size_t stacks_mapped() const;
  // Moves the workers' cached stacks to the shared list, so that the next run's workers, whichever needs
  // them, find every free stack. Only while no worker runs (between runs: caches_[i] belongs to worker i).
  void return_cached_stacks();

 private:
  struct Mapping {
    void* base;
    std::size_t length;
  };
  struct WorkerCache {
    alignas(64) std::vector<boost::context::stack_context> free;
  };
  // The top pages of a new slab's stacks: `count` pages, `stride` bytes apart from `first`.
  struct TopPages {
    char* first = nullptr;
    std::size_t stride = 0;
    std::size_t count = 0;
  };
  // Both set `tops` when they map a guarded slab, whose top pages allocate() then faults in, unlocked.
  boost::context::stack_context map_new(std::size_t size, TopPages& tops);
  std::optional<boost::context::stack_context> map_guarded_slab(std::size_t size, TopPages& tops);
  bool take_shared(std::size_t size, boost::context::stack_context& out);

  std::vector<WorkerCache> caches_;  // caches_[i] touched only by worker i
  mutable std::mutex mutex_;         // guards everything below
  std::vector<boost::context::stack_context> shared_free_;
  std::vector<Mapping> mappings_;
  std::map<std::size_t, std::size_t> slab_stacks_;  // stack size -> stacks in its next guarded slab
  bool guard_madvise_ = false;                      // guards by madvise (map_guarded_slab)
  std::size_t guard_budget_;
  std::size_t guarded_ = 0;
  std::size_t stacks_mapped_ = 0;
  bool warned_ = false;
};

// The Boost.Context stack allocator a process's fiber is created with.
// `bounds`, if given, receives the stack it allocates (for the stack-overflow report).
class PooledStack {
 public:
  PooledStack(StackPool& pool, std::size_t size, boost::context::stack_context* bounds = nullptr)
      : pool_(&pool), size_(size), bounds_(bounds) {}
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sc) noexcept;

 private:
  StackPool* pool_;
  std::size_t size_;
  boost::context::stack_context* bounds_;
};

}  // namespace kpn
