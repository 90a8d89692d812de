// Kahn's determinism: the output of a network depends on the order of messages within each channel, never
// on how its processes were scheduled. One network whose output would change with any reordering gives
// byte-identical output under every scheduler and worker count, and the same output as a plain sequential
// computation of the same functions.
//
//   src-a -> scale -> number -> fork -+-> running-sum -+-> join -+
//                                     +-> square ------+         +-> interleave -> accumulate -> sink
//   src-b ------------------------------------------------------+               ^      |
//                                                                                  |      v
//                                                                                  feedback (initial token)

#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

namespace {

using u64 = std::uint64_t;

constexpr u64 kA = kpn::test::full_or_sanitized<u64>(40'000, 2'000);
constexpr u64 kB = kpn::test::full_or_sanitized<u64>(30'000, 1'500);

// The functions of the processes, shared by the network and the sequential reference.
u64 src_a(u64 i) { return (i * 7919) % 10007; }
u64 src_b(u64 i) { return (i * i + 3) % 9973; }
u64 scale(u64 x) { return x * 3 + 1; }
u64 number(u64 x, u64 position) { return x + (position * position) % 13; }
u64 square(u64 x) { return (x * x) % 1000003; }
u64 accumulate(u64 x, u64 fed_back) { return (x + 31 * fed_back) % 1000003; }
u64 feed_back(u64 y) { return (y * 17 + 3) % 65521; }
constexpr u64 kInitialToken = 1;

// Strict alternation between two streams, first `a`; once one ends, the rest of the other.
void alternate(kpn::Reader<u64>& a, kpn::Reader<u64>& b, kpn::Writer<u64>& out) {
  bool a_open = true;
  bool b_open = true;
  while (a_open || b_open) {
    if (a_open) {
      if (auto v = a.read()) out.write(*v);
      else a_open = false;
    }
    if (b_open) {
      if (auto v = b.read()) out.write(*v);
      else b_open = false;
    }
  }
}

std::string run_network(const kpn::test::Config& cfg) {
  kpn::Network net;
  auto [a_tx, a_rx] = net.channel<u64>(1, "a");
  auto [scaled_tx, scaled_rx] = net.channel<u64>(2, "scaled");
  auto [numbered_tx, numbered_rx] = net.channel<u64>(1, "numbered");
  auto [left_tx, left_rx] = net.channel<u64>(3, "left");
  auto [right_tx, right_rx] = net.channel<u64>(1, "right");
  auto [summed_tx, summed_rx] = net.channel<u64>(1, "summed");
  auto [squared_tx, squared_rx] = net.channel<u64>(2, "squared");
  auto [joined_tx, joined_rx] = net.channel<u64>(1, "joined");
  auto [b_tx, b_rx] = net.channel<u64>(4, "b");
  auto [mixed_tx, mixed_rx] = net.channel<u64>(1, "mixed");
  auto [loop_tx, loop_rx] = net.channel<u64>(1, "loop");
  auto [fb_tx, fb_rx] = net.channel<u64>(1, "fed-back");
  auto [out_tx, out_rx] = net.channel<u64>(2, "out");
  std::string output;

  net.process("src-a", [tx = std::move(a_tx)]() mutable {
    for (u64 i = 0; i < kA; ++i) tx.write(src_a(i));
  });
  net.process("src-b", [tx = std::move(b_tx)]() mutable {
    for (u64 i = 0; i < kB; ++i) tx.write(src_b(i));
  });
  net.process("scale", [rx = std::move(a_rx), tx = std::move(scaled_tx)]() mutable {
    while (auto v = rx.read()) tx.write(scale(*v));
  });
  net.process("number", [rx = std::move(scaled_rx), tx = std::move(numbered_tx)]() mutable {
    u64 position = 0;
    while (auto v = rx.read()) tx.write(number(*v, position++));
  });
  net.process("fork", [rx = std::move(numbered_rx), l = std::move(left_tx), r = std::move(right_tx)]() mutable {
    bool to_left = true;
    while (auto v = rx.read()) {
      (to_left ? l : r).write(*v);
      to_left = !to_left;
    }
  });
  net.process("running-sum", [rx = std::move(left_rx), tx = std::move(summed_tx)]() mutable {
    u64 sum = 0;
    while (auto v = rx.read()) tx.write(sum += *v);
  });
  net.process("square", [rx = std::move(right_rx), tx = std::move(squared_tx)]() mutable {
    while (auto v = rx.read()) tx.write(square(*v));
  });
  net.process("join", [a = std::move(summed_rx), b = std::move(squared_rx), tx = std::move(joined_tx)]() mutable {
    alternate(a, b, tx);
  });
  net.process("interleave", [a = std::move(joined_rx), b = std::move(b_rx), tx = std::move(mixed_tx)]() mutable {
    alternate(a, b, tx);
  });
  // The cycle: each output needs the token the feedback process made from the previous output.
  net.process("accumulate", [in = std::move(mixed_rx), fb = std::move(fb_rx), loop = std::move(loop_tx),
                             out = std::move(out_tx)]() mutable {
    while (auto x = in.read()) {
      auto f = fb.read();
      if (!f) throw std::logic_error("the feedback loop lost its token");
      const u64 y = accumulate(*x, *f);
      loop.write(y);
      out.write(y);
    }
  });
  net.process("feedback", [rx = std::move(loop_rx), tx = std::move(fb_tx)]() mutable {
    tx.write(kInitialToken);
    // The last token is never read: accumulate may be gone by then, and the write ends this process
    // quietly with BrokenChannel.
    while (auto y = rx.read()) tx.write(feed_back(*y));
  });
  net.process("sink", [rx = std::move(out_rx), &output]() mutable {
    while (auto v = rx.read()) output += std::to_string(*v) + '\n';
  });

  kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
  return output;
}

// The same functions, computed in one thread in the order the channels impose.
std::string sequential_reference() {
  std::vector<u64> left, right;
  for (u64 i = 0; i < kA; ++i) (i % 2 == 0 ? left : right).push_back(number(scale(src_a(i)), i));
  u64 sum = 0;
  for (u64& v : left) v = sum += v;
  for (u64& v : right) v = square(v);
  auto alternate_vectors = [](const std::vector<u64>& a, const std::vector<u64>& b) {
    std::vector<u64> out;
    for (std::size_t i = 0; i < a.size() || i < b.size(); ++i) {
      if (i < a.size()) out.push_back(a[i]);
      if (i < b.size()) out.push_back(b[i]);
    }
    return out;
  };
  std::vector<u64> b;
  for (u64 i = 0; i < kB; ++i) b.push_back(src_b(i));
  const std::vector<u64> mixed = alternate_vectors(alternate_vectors(left, right), b);
  std::string output;
  u64 token = kInitialToken;
  for (u64 x : mixed) {
    const u64 y = accumulate(x, token);
    token = feed_back(y);
    output += std::to_string(y) + '\n';
  }
  return output;
}

}  // namespace

TEST_CASE("a network's output does not depend on the scheduler or the number of workers", "[channels]") {
  const std::string expected = sequential_reference();
  REQUIRE(expected.size() > 2 * (kA + kB));  // every line holds at least one digit and a newline
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    const std::string output = run_network(cfg);
    // Compare sizes first, so a mismatch is reported without printing megabytes.
    REQUIRE(output.size() == expected.size());
    const bool identical = output == expected;
    REQUIRE(identical);
  }
}
