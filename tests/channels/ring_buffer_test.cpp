// A channel's storage: the ring keeps FIFO order across wrap-around and growth, whatever its first size.

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "channels/ring_buffer.hpp"

namespace {

// Pushes and pops so that the ring wraps around before every growth: `lag` values stay in it while
// `total` pass through, then the growth to `peak` values, then the drain. Checks the order throughout.
void pass_through(kpn::RingBuffer<std::unique_ptr<int>>& ring, int total, int lag, int peak) {
  int next_in = 0;
  int next_out = 0;
  for (; next_in < total; ++next_in) {
    ring.push_back(std::make_unique<int>(next_in));
    if (static_cast<int>(ring.size()) > lag) {
      REQUIRE(*ring.pop_front() == next_out++);
    }
  }
  while (static_cast<int>(ring.size()) < peak) ring.push_back(std::make_unique<int>(next_in++));
  REQUIRE(*ring.front() == next_out);
  REQUIRE(*ring.back() == next_in - 1);
  while (!ring.empty()) REQUIRE(*ring.pop_front() == next_out++);
  REQUIRE(next_out == next_in);
}

}  // namespace

TEST_CASE("a ring that starts with one slot keeps FIFO order as it wraps and grows", "[channels]") {
  kpn::RingBuffer<std::unique_ptr<int>> ring(1);
  pass_through(ring, 100, 1, 37);
  // Reused after the drain, from a head that is not at slot 0.
  pass_through(ring, 50, 3, 70);
}

TEST_CASE("a ring keeps FIFO order for every first size", "[channels]") {
  for (std::size_t first : {std::size_t{0}, std::size_t{2}, std::size_t{3}, std::size_t{8}, std::size_t{1000}}) {
    CAPTURE(first);
    kpn::RingBuffer<std::unique_ptr<int>> ring(first);
    pass_through(ring, 64, 5, 40);
  }
}

TEST_CASE("a ring of elements too large to keep inline keeps FIFO order from one slot", "[channels]") {
  // 64 bytes: past what a ring keeps inside itself, so even its first slot is allocated.
  using Big = std::array<std::int64_t, 8>;
  kpn::RingBuffer<Big> ring(1);
  std::int64_t next_in = 0;
  std::int64_t next_out = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 1 + round * 20; ++i) ring.push_back(Big{next_in++});
    while (!ring.empty()) REQUIRE(ring.pop_front()[0] == next_out++);
  }
  REQUIRE(next_out == next_in);
}
