#pragma once
// ThreadSanitizer must be told when a kernel thread switches stacks, or it mistakes one process's stack
// for another's. Empty unless compiled with ThreadSanitizer.

#include "runtime/sanitizers.hpp"

#if defined(KPN_TSAN)
#include <sanitizer/tsan_interface.h>
#define KPN_TSAN_CREATE_FIBER() __tsan_create_fiber(0)
#define KPN_TSAN_DESTROY_FIBER(f) __tsan_destroy_fiber(f)
#define KPN_TSAN_CURRENT_FIBER() __tsan_get_current_fiber()
#define KPN_TSAN_SWITCH_TO(f) __tsan_switch_to_fiber((f), 0)
#else
#define KPN_TSAN_CREATE_FIBER() nullptr
#define KPN_TSAN_DESTROY_FIBER(f) ((void)0)
#define KPN_TSAN_CURRENT_FIBER() nullptr
#define KPN_TSAN_SWITCH_TO(f) ((void)0)
#endif
