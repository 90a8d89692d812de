#pragma once
// madvise for many equal, evenly spaced ranges of this program's memory (a slab's guard pages, its stacks'
// top pages), in as few system calls as the kernel allows.
//
// Linux 6.13 and later accept any advice from process_madvise on the calling program's own pidfd, with up
// hundreds of ranges a call: installing the guard pages of a slab of 1,024 stacks is then four calls, not
// 1,024. The pidfd is opened for each batch and closed after it, never cached: a cached one would go on
// naming the parent in a child made by fork. Where the kernel refuses (older kernels, a seccomp filter),
// the ranges are advised one madvise call each, if the caller asks for that.

#include <sys/mman.h>

#include <cstddef>

// Advice values older kernel headers lack: Linux 6.13's lightweight guard pages (the range faults on access
// like a PROT_NONE page, but inside an existing mapping, so a guard costs neither a mapping of its own nor
// a split of the one it lies in), and Linux 5.14's populate-for-writing. A kernel without them refuses
// them with EINVAL.
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace kpn {

// Applies `advice` to `count` ranges of `length` bytes, the i-th at `first + i * stride`. Returns how many
// ranges, from the first, were advised: `count` on success, fewer where the kernel refused a range. With
// `one_by_one` false, ranges a batch could not advise are left as they are (for advice that only saves
// work later, such as MADV_POPULATE_WRITE).
std::size_t advise_strided(char* first, std::size_t stride, std::size_t count, std::size_t length, int advice,
                           bool one_by_one);

}  // namespace kpn
