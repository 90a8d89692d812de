#pragma once
// AddressSanitizer must be told when a kernel thread switches stacks, or it reports false stack errors
// (notably while an exception unwinds a process's stack). Empty unless compiled with AddressSanitizer.

#include "runtime/sanitizers.hpp"

#if defined(KPN_ASAN)
#include <sanitizer/common_interface_defs.h>
#define KPN_ASAN_START_SWITCH(fake_save, bottom, size) __sanitizer_start_switch_fiber((fake_save), (bottom), (size))
#define KPN_ASAN_FINISH_SWITCH(fake, bottom_out, size_out) __sanitizer_finish_switch_fiber((fake), (bottom_out), (size_out))
#else
#define KPN_ASAN_START_SWITCH(fake_save, bottom, size) ((void)0)
#define KPN_ASAN_FINISH_SWITCH(fake, bottom_out, size_out) ((void)0)
#endif
