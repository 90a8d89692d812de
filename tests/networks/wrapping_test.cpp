// Integer streams wrap around on overflow (two's complement), as docs/topology.md says: source, map, add
// and sink compute in unsigned arithmetic, so an overflow is defined behaviour with a documented result.

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "networks_support.hpp"

namespace {

// The sink's line for `values`, its sum wrapped as the sink wraps it.
std::string wrapped_sink_line(const std::string& label, const std::vector<std::uint64_t>& values) {
  std::uint64_t h = 1469598103934665603ull;
  std::uint64_t sum = 0;
  for (std::uint64_t u : values) {
    sum += u;
    for (int i = 0; i < 8; ++i) {
      h ^= (u >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
  return fmt::format("{}: count={} sum={} hash={:016x}", label, values.size(), static_cast<std::int64_t>(sum), h);
}

}  // namespace

TEST_CASE("source, map and sink wrap around past the int64 range instead of overflowing", "[networks]") {
  const auto net = kpn::test::resolve_text(R"(network: t
processes:
  src: { kind: source, args: { count: 3, start: 9223372036854775806, step: 4611686018427387904 } }
  twice: { kind: map, args: { mul: 3, add: 9223372036854775807 } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: twice.in }
  - { from: twice.out, to: snk.in }
)");
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < 3; ++i) {
    const std::uint64_t v = 9223372036854775806ull + i * 4611686018427387904ull;
    expected.push_back(v * 3 + 9223372036854775807ull);
  }
  CHECK(kpn::test::run_lines(net, "ws-last", 1) == std::vector<std::string>{wrapped_sink_line("snk", expected)});
}
