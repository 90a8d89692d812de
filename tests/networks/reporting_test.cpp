// How problems are reported: the loader's and the resolver's together, a value's origin when it was not
// written where it is used, a kind's own refusal at its declaration; and DOT that stays valid whatever the
// names hold.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "networks/dot.hpp"
#include "networks/limits.hpp"
#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::listing;

namespace {

std::vector<kpn::Diagnostic> lenient_errors_of(const std::string& yaml, const kpn::test::Sets& sets = {}) {
  try {
    kpn::resolve(kpn::read_topology(yaml, "t.yaml"), sets);
  } catch (const kpn::TopologyError& e) {
    return e.diagnostics();
  }
  return {};
}

const char* kCapacityParam = R"(network: t
params: { capacity: 4 }
processes:
  src: { kind: source }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in, capacity: $capacity }
)";

}  // namespace

TEST_CASE("errors of loading and of resolving one file are reported together", "[networks]") {
  const auto diags = lenient_errors_of(R"(network: t
processes:
  src: { kind: source, colour: red }
  snk: { kind: sinc }
channels:
  - { from: src.out, to: snk.in }
)");
  INFO(listing(diags));
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].where.str() == "t.yaml:3:24");  // the loader: an unknown key
  CHECK_THAT(diags[0].message, Contains("unknown key 'colour'"));
  CHECK(diags[1].where.str() == "t.yaml:4:16");  // the resolver: an unknown kind
  CHECK_THAT(diags[1].message, Contains("unknown kind 'sinc'"));
}

TEST_CASE("kpn-run reports the loader's and the resolver's errors of one file together", "[runner]") {
  const auto file = kpn::test::write_scratch("two-phases.yaml", R"(network: t
processes:
  src: { kind: source, colour: red }
  snk: { kind: sinc }
channels:
  - { from: src.out, to: snk.in }
)");
  const auto r = kpn::test::kpn_run(kpn::test::quoted_path(file) + " --validate");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains(":3:24: process 'src': unknown key 'colour'") && Contains(":4:16: process 'snk': unknown kind 'sinc'"));
}

TEST_CASE("a process the loader could not read is not also reported as unknown where it is used", "[networks]") {
  const auto diags = lenient_errors_of(R"(network: t
processes:
  src: [ source ]
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK_THAT(diags[0].message, Contains("must be a map"));
}

TEST_CASE("a capacity out of range from --set says it came from --set", "[networks]") {
  const auto diags = kpn::test::errors_of(kCapacityParam, {{"capacity", "0"}});
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message == fmt::format("channel capacity: 0 is out of range [1, {}] (from --set capacity=0)",
                                        kpn::limits::kMaxCapacity));
}

TEST_CASE("a capacity out of range from a parameter's default names the parameter and its default", "[networks]") {
  std::string yaml = kCapacityParam;
  yaml.replace(yaml.find("capacity: 4"), 11, "capacity: 0");
  const auto diags = kpn::test::errors_of(yaml);
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.str() == "t.yaml:7:44");
  CHECK(diags[0].message == fmt::format("channel capacity: 0 is out of range [1, {}] (from $capacity, its default at "
                                        "t.yaml:2:21)",
                                        kpn::limits::kMaxCapacity));
}

TEST_CASE("a kind refusing its own argument is reported at the process's declaration", "[networks]") {
  const auto net = kpn::test::resolve_text(R"(network: t
processes:
  snk: { kind: sink }
  src: { kind: source, args: { count: -1 } }
channels:
  - { from: src.out, to: snk.in }
)");
  kpn::ResultSink discard([](std::string_view) {});
  try {
    (void)kpn::build_network(net, discard);
    FAIL("no error");
  } catch (const kpn::TopologyError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].str() == "t.yaml:4:3: process 'src' (kind 'source'): count must be >= 0");
  }
}

TEST_CASE("a network name ending in a backslash gives a DOT name that escapes it", "[networks]") {
  const auto net = kpn::test::resolve_text(R"(network: 'back\slash\'
processes:
  src: { kind: source }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  const std::string dot = kpn::to_dot(net);
  CHECK_THAT(dot, Contains(R"(digraph "back\\slash\\" {)"));
  CHECK_THAT(dot, Contains(R"(p0 [label="src\nsource"];)"));
}

TEST_CASE("a network name with quotes and a line break gives a DOT name that escapes them", "[networks]") {
  const auto net = kpn::test::resolve_text("network: \"say \\\"hi\\\"\\nthere\"\nprocesses:\n  src: { kind: source }\n"
                                           "  snk: { kind: sink }\nchannels:\n  - { from: src.out, to: snk.in }\n");
  CHECK_THAT(kpn::to_dot(net), Contains(R"(digraph "say \"hi\"\nthere" {)"));
}
