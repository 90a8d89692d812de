#include "runtime/strided_advice.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>

namespace kpn {
namespace {

// Ranges a batch hands the kernel at once: at most UIO_MAXIOV (1,024 on Linux); 256 keeps the ranges' array
// at 4 KiB of the caller's stack, and a slab of 1,024 stacks at four calls.
constexpr std::size_t kBatch = 256;

// process_madvise on this program's own pidfd, `n` ranges from `first`: the bytes advised, or -1.
long advise_batch(char* first, std::size_t stride, std::size_t n, std::size_t length, int advice) {
#if defined(SYS_process_madvise) && defined(SYS_pidfd_open)
  std::array<iovec, kBatch> ranges;
  for (std::size_t i = 0; i < n; ++i) ranges[i] = {first + i * stride, length};
  const long pidfd = ::syscall(SYS_pidfd_open, ::getpid(), 0);
  if (pidfd < 0) return -1;
  const long done = ::syscall(SYS_process_madvise, static_cast<int>(pidfd), ranges.data(), n, advice, 0u);
  ::close(static_cast<int>(pidfd));
  return done;
#else
  (void)first, (void)stride, (void)n, (void)length, (void)advice;
  return -1;
#endif
}

}  // namespace

std::size_t advise_strided(char* first, std::size_t stride, std::size_t count, std::size_t length, int advice,
                           bool one_by_one) {
  std::size_t done = 0;
  while (done < count) {
    const std::size_t n = std::min(kBatch, count - done);
    const long bytes = advise_batch(first + done * stride, stride, n, length, advice);
    // The kernel advises the ranges in order and reports the bytes of the whole ranges it got through.
    const std::size_t advised = bytes > 0 ? static_cast<std::size_t>(bytes) / length : 0;
    done += std::min(advised, n);
    if (advised >= n) continue;
    if (!one_by_one) return done;
    // Refused (or cut short): the rest one call each, stopping at the first the kernel refuses.
    for (; done < count; ++done) {
      if (::madvise(first + done * stride, length, advice) != 0) return done;
    }
  }
  return done;
}

}  // namespace kpn
