// networks/feedback.hpp: which output channels of a process stay in its cycle. The builder hands the flags to
// the kinds (KindContext::feedback), whose rule for broken channels depends on them.

#include <catch2/catch.hpp>

#include "networks/feedback.hpp"
#include "networks_support.hpp"

namespace {

// A loop through `token` and `copy`, whose broadcast also writes out of the loop to `out`; and a source
// feeding a sink beside it, in no cycle at all.
constexpr const char* kLoopWithExit = R"(network: t
processes:
  token: { kind: prepend }
  copy: { kind: broadcast }
  out: { kind: sink, args: { limit: 3 } }
  src: { kind: source, args: { count: 3 } }
  snk: { kind: sink }
channels:
  - { from: token.out, to: copy.in }
  - { from: copy.out, to: token.in }
  - { from: copy.out, to: out.in }
  - { from: src.out, to: snk.in }
)";

std::size_t index_of(const kpn::ResolvedNetwork& net, const std::string& name) {
  for (std::size_t i = 0; i < net.processes.size(); ++i) {
    if (net.processes[i].name == name) return i;
  }
  FAIL("no process " << name);
  return 0;
}

}  // namespace

TEST_CASE("output roles flag each channel of a port in a cycle by whether it stays in the cycle", "[networks]") {
  const auto net = kpn::test::resolve_text(kLoopWithExit);
  const auto roles = kpn::output_roles(net);
  REQUIRE(roles.size() == net.processes.size());
  const auto& copy = roles[index_of(net, "copy")];
  REQUIRE(copy.feedback.count("out") == 1);
  CHECK(copy.feedback.at("out") == std::vector<bool>{true, false});
  const auto& token = roles[index_of(net, "token")];
  REQUIRE(token.feedback.count("out") == 1);
  CHECK(token.feedback.at("out") == std::vector<bool>{true});
}

TEST_CASE("output roles list no feedback for a process in no cycle", "[networks]") {
  const auto net = kpn::test::resolve_text(kLoopWithExit);
  const auto roles = kpn::output_roles(net);
  CHECK(roles[index_of(net, "src")].feedback.empty());
  CHECK(roles[index_of(net, "snk")].feedback.empty());
  CHECK(roles[index_of(net, "out")].feedback.empty());
}

TEST_CASE("output roles say whether another member of a cycle writes out of it", "[networks]") {
  const auto net = kpn::test::resolve_text(kLoopWithExit);
  const auto roles = kpn::output_roles(net);
  // copy is the loop's only exit: for token another member (copy) writes out; for copy none but itself does.
  CHECK(roles[index_of(net, "token")].cycle_has_other_exits);
  CHECK_FALSE(roles[index_of(net, "copy")].cycle_has_other_exits);
}
