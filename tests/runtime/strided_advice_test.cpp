#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <vector>

#include "runtime/strided_advice.hpp"

// madvise over evenly spaced ranges (runtime/strided_advice.hpp): in batches of process_madvise where the
// kernel allows, else one call a range. Either way exactly the ranges asked for are advised, however many.

namespace {

const std::size_t kPage = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

// A private anonymous mapping of `pages` pages, unmapped when it goes.
struct Mapping {
  explicit Mapping(std::size_t pages) : length(pages * kPage) {
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    bytes = static_cast<char*>(p);
    // 4 KiB pages, so that a populated page does not bring its neighbours in as part of a huge page.
    ::madvise(p, length, MADV_NOHUGEPAGE);
  }
  ~Mapping() { ::munmap(bytes, length); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  char* bytes = nullptr;
  std::size_t length = 0;
};

bool resident(const char* page) {
  unsigned char v = 0;
  REQUIRE(::mincore(const_cast<char*>(page), kPage, &v) == 0);
  return (v & 1) != 0;
}

}  // namespace

TEST_CASE("strided advice drops exactly the pages asked for, across several batches", "[runtime][stacks]") {
  // 600 ranges of one page, every third page: more than one batch of process_madvise. MADV_DONTNEED on a
  // private anonymous page makes it read as zero again; the pages between keep what was written.
  constexpr std::size_t kRanges = 600;
  constexpr std::size_t kStride = 3;
  Mapping m(kRanges * kStride);
  for (std::size_t i = 0; i < kRanges * kStride; ++i) m.bytes[i * kPage] = 7;
  const std::size_t advised = kpn::advise_strided(m.bytes, kStride * kPage, kRanges, kPage, MADV_DONTNEED, true);
  REQUIRE(advised == kRanges);
  for (std::size_t i = 0; i < kRanges * kStride; ++i) {
    CAPTURE(i);
    CHECK(m.bytes[i * kPage] == (i % kStride == 0 ? 0 : 7));
  }
}

TEST_CASE("strided advice reports how far it got when the kernel refuses a range", "[runtime][stacks]") {
  // The third of four ranges is read-only, so populating it for writing fails (EFAULT): two ranges are
  // advised, by a batch cut short or one by one.
  Mapping m(8);
  if (::madvise(m.bytes, kPage, MADV_POPULATE_WRITE) != 0) {
    WARN("this kernel has no MADV_POPULATE_WRITE (Linux 5.14): nothing to refuse");
    return;
  }
  REQUIRE(::mprotect(m.bytes + 4 * kPage, kPage, PROT_READ) == 0);
  CHECK(kpn::advise_strided(m.bytes, 2 * kPage, 4, kPage, MADV_POPULATE_WRITE, true) == 2);
}

TEST_CASE("strided populate faults in the pages it reports, and only asks, never fails", "[runtime][stacks]") {
  constexpr std::size_t kRanges = 300;
  Mapping m(kRanges * 2);
  const std::size_t advised = kpn::advise_strided(m.bytes + kPage, 2 * kPage, kRanges, kPage, MADV_POPULATE_WRITE, false);
  CHECK(advised <= kRanges);  // 0 where the kernel cannot populate by process_madvise (before Linux 6.13)
  for (std::size_t i = 0; i < advised; ++i) {
    CAPTURE(i);
    CHECK(resident(m.bytes + (2 * i + 1) * kPage));
    CHECK_FALSE(resident(m.bytes + 2 * i * kPage));
  }
}
