// Names and port references are checked by plain scans with a length limit (networks/names.hpp): no
// input crashes the loader, and a refused name is reported with its location.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "networks/limits.hpp"
#include "networks/names.hpp"
#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::errors_of;
using kpn::test::listing;

namespace {

const std::string kHuge(100'000, 'a');

// The name is written as an explicit key ("? name"): YAML allows implicit keys of at most 1024 characters.
std::string network_with_process(const std::string& name) {
  return "network: t\nprocesses:\n  ? " + name + "\n  : { kind: source }\n  snk: { kind: sink }\nchannels:\n  - { from: " +
         name + ".out, to: snk.in }\n";
}

}  // namespace

TEST_CASE("a process name of 100,000 characters is refused at its location, without crashing", "[networks]") {
  const auto diags = errors_of(network_with_process(kHuge));
  INFO(listing(diags).substr(0, 2000));
  REQUIRE(!diags.empty());
  CHECK(diags[0].where.str() == "t.yaml:3:5");
  CHECK_THAT(diags[0].message, Contains("a process name") && Contains("is too long: 100000 bytes") &&
                                   Contains(std::to_string(kpn::limits::kMaxNameLength)));
  for (const auto& d : diags) CHECK(d.message.size() < 500);  // the name is not copied whole into messages
}

TEST_CASE("a port reference of 100,000 characters is refused at its location, without crashing", "[networks]") {
  const std::string yaml = "network: t\nprocesses:\n  src: { kind: source }\n  snk: { kind: sink }\nchannels:\n"
                           "  - { from: src." + kHuge + ", to: snk.in }\n";
  const auto diags = errors_of(yaml);
  INFO(listing(diags).substr(0, 2000));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.str() == "t.yaml:6:13");
  CHECK_THAT(diags[0].message, Contains("too long for a port reference") && Contains("100004 bytes"));
}

TEST_CASE("a plain process key of 100,000 characters is malformed YAML, reported at its line without crashing", "[networks]") {
  const std::string yaml = "network: t\nprocesses:\n  " + kHuge + ": { kind: source }\n";
  const auto diags = errors_of(yaml);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.line == 3);
  CHECK_THAT(diags[0].message, Contains("malformed YAML"));
}

TEST_CASE("a name at the length limit is accepted, one byte more is refused", "[networks]") {
  const std::string at_limit = "p" + std::string(kpn::limits::kMaxNameLength - 1, 'x');
  CHECK(errors_of(network_with_process(at_limit)).empty());
  const auto diags = errors_of(network_with_process(at_limit + "x"));
  REQUIRE(!diags.empty());
  CHECK_THAT(diags[0].message, Contains("is too long"));
}

TEST_CASE("kpn-run refuses a 100,000-character process name with exit 2 and the location", "[runner]") {
  const auto file = kpn::test::write_scratch("long-name.yaml", network_with_process(kHuge));
  const auto r = kpn::test::kpn_run(kpn::test::quoted_path(file) + " --validate");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains(file.string() + ":3:5: a process name"));
}

TEST_CASE("a process name with invalid UTF-8 is refused at load time with its location", "[networks]") {
  const auto diags = errors_of(network_with_process("bad\xff\xfename"));
  INFO(listing(diags));
  REQUIRE(!diags.empty());
  CHECK(diags[0].where.str() == "t.yaml:3:5");
  CHECK_THAT(diags[0].message, Contains("is not valid UTF-8"));
}

TEST_CASE("a network name with invalid UTF-8 is refused at load time with its location", "[networks]") {
  const auto diags = errors_of("network: \"n\xc3\x28\"\nprocesses:\n  src: { kind: source }\n  snk: { kind: sink }\n"
                               "channels:\n  - { from: src.out, to: snk.in }\n");
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.str() == "t.yaml:1:10");
  CHECK_THAT(diags[0].message, Contains("'network' is not valid UTF-8"));
}

TEST_CASE("the UTF-8 check accepts well-formed text and refuses overlong forms, surrogates and stray bytes", "[networks]") {
  CHECK(kpn::is_valid_utf8("plain"));
  CHECK(kpn::is_valid_utf8("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // été € 😀
  CHECK_FALSE(kpn::is_valid_utf8("\xc0\xaf"));          // overlong '/'
  CHECK_FALSE(kpn::is_valid_utf8("\xed\xa0\x80"));      // a surrogate
  CHECK_FALSE(kpn::is_valid_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  CHECK_FALSE(kpn::is_valid_utf8("\x80"));              // a stray continuation byte
  CHECK_FALSE(kpn::is_valid_utf8("\xe2\x82"));          // truncated
}

TEST_CASE("port references parse as process.port or process[index].port and nothing else", "[networks]") {
  const auto plain = kpn::parse_port_ref("src.out");
  REQUIRE(plain);
  CHECK(plain->process == "src");
  CHECK(plain->port == "out");
  CHECK_FALSE(plain->index);
  const auto indexed = kpn::parse_port_ref("st[ -2 ].in");
  REQUIRE(indexed);
  CHECK(*indexed->index == "-2");
  const auto param = kpn::parse_port_ref("st[$last].in");
  REQUIRE(param);
  CHECK(*param->index == "$last");
  for (const char* bad : {"src", "src.", ".out", "src.out.x", "s rc.out", "st[].in", "st[1.in", "st[x].in", "1st.out",
                          "st[1]in", "src.o-ut!"}) {
    CAPTURE(bad);
    CHECK_FALSE(kpn::parse_port_ref(bad));
  }
}

TEST_CASE("an unquoted indexed port reference in a flow map gets a hint to quote it", "[networks]") {
  const auto diags = errors_of("network: t\nprocesses:\n  st: { kind: map, replicas: 2 }\nchannels:\n"
                               "  - { from: st[0].out, to: st[1].in }\n");
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK_THAT(diags[0].message, Contains("malformed YAML") && Contains("must be quoted") && Contains("\"st[0].in\""));
}
