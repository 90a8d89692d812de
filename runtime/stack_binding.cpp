// A thread's binding to its cache of a stack pool, and the Boost.Context stack allocator that goes through
// it (PooledStack, stack_pool.hpp).
#include "runtime/stack_pool.hpp"

#include "runtime/asan.hpp"  // first: it decides KPN_ASAN from the compiler's own flags

#if defined(KPN_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace kpn {

namespace {
// The pool and cache the calling kernel thread is bound to (StackPool::ThreadBinding).
thread_local const StackPool* t_pool = nullptr;
thread_local int t_cache = -1;

// The calling worker's cache index in `pool`, or -1 when the caller is not one of the pool's workers.
int cache_index(const StackPool* pool) noexcept { return t_pool == pool ? t_cache : -1; }
}  // namespace

StackPool::ThreadBinding::ThreadBinding(const StackPool& pool, int cache) noexcept
    : previous_pool_(t_pool), previous_cache_(t_cache) {
  t_pool = &pool;
  t_cache = cache;
}

StackPool::ThreadBinding::~ThreadBinding() {
  t_pool = previous_pool_;
  t_cache = previous_cache_;
}

boost::context::stack_context PooledStack::allocate() {
  boost::context::stack_context sc = pool_->allocate(size_, cache_index(pool_));
#if defined(KPN_ASAN)
  // A reused stack still carries the poisoned redzones of frames its last process never returned from
  // (the fiber's entry frame, for one): clear them, or the new process trips over them.
  ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(sc.sp) - sc.size, sc.size);
#endif
  if (bounds_ != nullptr) *bounds_ = sc;
  return sc;
}

void PooledStack::deallocate(boost::context::stack_context& sc) noexcept { pool_->deallocate(sc, cache_index(pool_)); }

}  // namespace kpn
