// Every class of error in a topology file is reported before anything runs, naming the file, the line and
// the column, and saying what was expected. Each test writes a small file ("t.yaml") with one mistake.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "networks/limits.hpp"
#include "networks_support.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using kpn::test::errors_of;
using kpn::test::listing;

namespace {

// A port type no built-in kind uses, to provoke a type mismatch.
KPN_REGISTER_KIND(test_f64_source, {
    .name = "test.f64-source",
    .description = "writes 1.5 once (for the type-mismatch test)",
    .ports = {kpn::out_port("out", "f64")},
    .args = {},
    .factory = [](kpn::KindContext& ctx) -> kpn::UniqueFunction<void()> {
      return [out = ctx.output<double>("out")]() mutable { out.write(1.5); };
    }});

// The only diagnostic of `diags`, checked to be at line:column of t.yaml.
kpn::Diagnostic only_one_at(const std::vector<kpn::Diagnostic>& diags, int line, int column) {
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  const auto& d = diags.front();
  CHECK(d.where.file == "t.yaml");
  CHECK(d.where.line == line);
  CHECK(d.where.column == column);
  CHECK_THAT(d.str(), StartsWith("t.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ": "));
  return d;
}

// The first of `diags` (there may be more after it), checked to be at line:column of t.yaml.
kpn::Diagnostic first_at(const std::vector<kpn::Diagnostic>& diags, int line, int column) {
  INFO(listing(diags));
  REQUIRE_FALSE(diags.empty());
  const auto& d = diags.front();
  CHECK(d.where.str() == "t.yaml:" + std::to_string(line) + ":" + std::to_string(column));
  return d;
}

}  // namespace

TEST_CASE("a valid file resolves without diagnostics", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source, args: { count: 10 } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)";
  CHECK(listing(errors_of(yaml)).empty());
}

TEST_CASE("malformed YAML is reported with its location", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source, args: { count: 10 }
  snk: { kind: sink }
)";
  const auto diags = errors_of(yaml);
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.file == "t.yaml");
  CHECK(diags[0].where.line >= 3);
  CHECK(diags[0].where.column >= 1);
  CHECK_THAT(diags[0].message, StartsWith("malformed YAML: "));
}

TEST_CASE("a file that is not a map says which keys it expects", "[networks]") {
  const auto d = only_one_at(errors_of("- just\n- a list\n"), 1, 1);
  CHECK_THAT(d.message, Contains("expected a map") && Contains("'processes'") && Contains("'channels'"));
}

TEST_CASE("an unknown top-level key suggests the nearest valid key", "[networks]") {
  const std::string yaml = R"(network: t
descripton: a typo
processes:
  src: { kind: source, args: { count: 10 } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)";
  const auto d = only_one_at(errors_of(yaml), 2, 1);
  CHECK_THAT(d.message, Contains("unknown key 'descripton'") && Contains("did you mean 'description'?") &&
                            Contains("valid keys: network, description, params, processes, channels"));
}

TEST_CASE("an unknown process key suggests the nearest valid key", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source, replica: 2 }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)";
  const auto d = only_one_at(errors_of(yaml), 3, 24);
  CHECK_THAT(d.message, Contains("process 'src'") && Contains("unknown key 'replica'") &&
                            Contains("did you mean 'replicas'?") && Contains("kind, args, replicas, stack_size, cpu, priority"));
}

TEST_CASE("an unknown channel key suggests the nearest valid key", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in, capacty: 4 }
)";
  const auto d = only_one_at(errors_of(yaml), 6, 34);
  CHECK_THAT(d.message, Contains("channel") && Contains("unknown key 'capacty'") && Contains("did you mean 'capacity'?") &&
                            Contains("from, to, capacity, shift, wrap, count"));
}

TEST_CASE("an unknown kind is reported with the list of kinds", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: sorce }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)";
  const auto d = first_at(errors_of(yaml), 3, 16);
  CHECK_THAT(d.message, Contains("process 'src': unknown kind 'sorce'") && Contains("did you mean 'source'?") &&
                            Contains("known kinds: ") && Contains("scatter-gather.master") && Contains("sink") &&
                            Contains("split"));
}

TEST_CASE("an unknown port is reported with the kind's ports", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source }
  snk: { kind: sink }
channels:
  - { from: src.outt, to: snk.in }
)";
  const auto d = first_at(errors_of(yaml), 6, 13);
  CHECK_THAT(d.message, Contains("process 'src' (kind 'source') has no port 'outt'") && Contains("did you mean 'out'?") &&
                            Contains("its ports: out"));
}

TEST_CASE("an unconnected port is reported at its process", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source }
  snk: { kind: sink }
)";
  const auto diags = errors_of(yaml);
  INFO(listing(diags));
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].str() == "t.yaml:3:3: port 'src.out' (output i64) is not connected");
  CHECK(diags[1].str() == "t.yaml:4:3: port 'snk.in' (input i64) is not connected");
}

TEST_CASE("a single port connected twice is reported at the second channel, naming the first", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  a: { kind: source }
  b: { kind: source }
  snk: { kind: sink }
channels:
  - { from: a.out, to: snk.in }
  - { from: b.out, to: snk.in }
)";
  const auto d = only_one_at(errors_of(yaml), 8, 5);
  CHECK_THAT(d.message, Contains("port 'snk.in' is connected twice (first at t.yaml:7:5)") &&
                            Contains("a single port takes one channel"));
}

TEST_CASE("a channel between ports of different types is a type mismatch", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: test.f64-source }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)";
  const auto diags = errors_of(yaml);
  INFO(listing(diags));
  REQUIRE_FALSE(diags.empty());
  CHECK(diags.front().str() == "t.yaml:6:5: type mismatch: 'src.out' writes f64 but 'snk.in' reads i64");
}

TEST_CASE("a channel from an input port is rejected", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source }
  snk: { kind: sink }
channels:
  - { from: snk.in, to: src.out }
)";
  const auto diags = errors_of(yaml);
  INFO(listing(diags));
  REQUIRE(diags.size() >= 2);
  CHECK(diags[0].str() == "t.yaml:6:13: port 'snk.in' is an input port; a channel goes from an output to an input");
  CHECK(diags[1].str() == "t.yaml:6:25: port 'src.out' is an output port; a channel goes from an output to an input");
}

TEST_CASE("duplicate process names are reported at the second one", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source }
  snk: { kind: sink }
  src: { kind: source }
channels:
  - { from: src.out, to: snk.in }
)";
  const auto d = only_one_at(errors_of(yaml), 5, 3);
  CHECK(d.message == "duplicate process name 'src'");
}

TEST_CASE("a missing required argument names the argument, its type and the kind", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  master: { kind: scatter-gather.master }
  worker: { kind: scatter-gather.worker, replicas: 2 }
channels:
  - { from: master.out, to: worker.in }
  - { from: worker.out, to: master.in }
)";
  const auto d = only_one_at(errors_of(yaml), 3, 3);
  CHECK(d.message == "process 'master': missing required argument 'rounds' (integer) of kind 'scatter-gather.master'");
}

TEST_CASE("an ill-typed argument says which type was expected", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source, args: { count: ten } }
  snk: { kind: sink, args: { print_values: maybe } }
  sq: { kind: map, args: { work_us: fast } }
channels:
  - { from: src.out, to: sq.in }
  - { from: sq.out, to: snk.in }
)";
  const auto diags = errors_of(yaml);
  INFO(listing(diags));
  REQUIRE(diags.size() == 3);
  CHECK(diags[0].str() == "t.yaml:3:39: process 'src': argument 'count': expected an integer, got 'ten'");
  CHECK(diags[1].str() == "t.yaml:4:44: process 'snk': argument 'print_values': expected a boolean, got 'maybe'");
  CHECK(diags[2].str() == "t.yaml:5:37: process 'sq': argument 'work_us': expected a number, got 'fast'");
}

TEST_CASE("an unknown argument suggests the nearest and lists the kind's arguments", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source, args: { cout: 10 } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)";
  const auto d = only_one_at(errors_of(yaml), 3, 32);
  CHECK(d.message == "process 'src': kind 'source' has no argument 'cout' (did you mean 'count'?); "
                     "its arguments: count, start, step, rate, period_us");
}

TEST_CASE("an undefined $parameter is reported where it is used", "[networks]") {
  const std::string yaml = R"(network: t
params: { count: 10 }
processes:
  src: { kind: source, args: { count: $cont } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)";
  const auto d = only_one_at(errors_of(yaml), 4, 39);
  CHECK(d.message == "process 'src': argument 'count': undefined parameter '$cont' (did you mean 'count'?)");
}

TEST_CASE("a --set of an unknown parameter names the option and the file's parameters", "[networks]") {
  const std::string yaml = R"(network: t
params: { count: 10, capacity: 1 }
processes:
  src: { kind: source, args: { count: $count } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in, capacity: $capacity }
)";
  const auto diags = errors_of(yaml, {{"cont", "5"}});
  INFO(listing(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].where.file == "--set cont=5");
  CHECK(diags[0].str() ==
        "--set cont=5: 'cont' is not a parameter of t.yaml (did you mean 'count'?); its parameters are: count, capacity");
}

TEST_CASE("an ill-typed --set value is reported where the parameter is used, naming the --set", "[networks]") {
  const std::string yaml = R"(network: t
params: { count: 10 }
processes:
  src: { kind: source, args: { count: $count } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)";
  const auto d = only_one_at(errors_of(yaml, {{"count", "lots"}}), 4, 39);
  CHECK(d.message == "process 'src': argument 'count': expected an integer, got 'lots' "
                     "(parameter 'count', from --set count=lots)");
}

TEST_CASE("zero or negative replicas are out of range", "[networks]") {
  for (const char* replicas : {"0", "-3"}) {
    CAPTURE(replicas);
    const std::string yaml = fmt::format(R"(network: t
processes:
  src: {{ kind: source }}
  work: {{ kind: map, replicas: {} }}
  snk: {{ kind: sink }}
  split: {{ kind: split }}
  merge: {{ kind: merge }}
channels:
  - {{ from: src.out, to: split.in }}
  - {{ from: split.out, to: work.in }}
  - {{ from: work.out, to: merge.in }}
  - {{ from: merge.out, to: snk.in }}
)",
                                         replicas);
    const auto d = only_one_at(errors_of(yaml), 4, 32);
    CHECK(d.message == fmt::format("process 'work': replicas: {} is out of range [1, {}]", replicas, kpn::limits::kMaxReplicas));
  }
}

TEST_CASE("a zero or negative capacity is out of range", "[networks]") {
  for (const char* capacity : {"0", "-1"}) {
    CAPTURE(capacity);
    const std::string yaml = fmt::format(R"(network: t
processes:
  src: {{ kind: source }}
  snk: {{ kind: sink }}
channels:
  - {{ from: src.out, to: snk.in, capacity: {} }}
)",
                                         capacity);
    const auto d = only_one_at(errors_of(yaml), 6, 44);
    CHECK(d.message == fmt::format("channel capacity: {} is out of range [1, {}]", capacity, kpn::limits::kMaxCapacity));
  }
}

TEST_CASE("ten million replicas exceed the limit before anything is allocated", "[networks]") {
  const std::string yaml = R"(network: t
params: { nodes: 16 }
processes:
  node: { kind: ring.node, replicas: $nodes }
channels:
  - { from: node.out, to: node.in, shift: 1 }
)";
  const auto d = only_one_at(errors_of(yaml, {{"nodes", "10000000"}}), 4, 38);
  CHECK(d.message == fmt::format("process 'node': replicas: 10000000 is out of range [1, {}] (from --set nodes=10000000)",
                                 kpn::limits::kMaxReplicas));
}

TEST_CASE("a capacity of 2^40 exceeds the limit", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in, capacity: 1099511627776 }
)";
  const auto d = only_one_at(errors_of(yaml), 6, 44);
  CHECK(d.message == fmt::format("channel capacity: 1099511627776 is out of range [1, {}]", kpn::limits::kMaxCapacity));
}

TEST_CASE("a capacity that overflows 64 bits is not an integer", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in, capacity: 99999999999999999999999 }
)";
  const auto d = only_one_at(errors_of(yaml), 6, 44);
  CHECK_THAT(d.message, Contains("expected an integer"));
}

TEST_CASE("every error in a file is reported at once", "[networks]") {
  const std::string yaml = R"(network: t
processes:
  src: { kind: source, args: { count: ten } }
  snk: { kind: sink, args: { lable: x } }
channels:
  - { from: src.out, to: snk.in, capacity: 0 }
)";
  const auto diags = errors_of(yaml);
  INFO(listing(diags));
  REQUIRE(diags.size() == 3);
  CHECK(diags[0].where.str() == "t.yaml:3:39");
  CHECK(diags[1].where.str() == "t.yaml:4:30");
  CHECK(diags[2].where.str() == "t.yaml:6:44");
}

TEST_CASE("a file that cannot be opened is a topology error naming it", "[networks]") {
  try {
    kpn::load_topology_file("/nonexistent/t.yaml");
    FAIL("no error");
  } catch (const kpn::TopologyError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].str() == "/nonexistent/t.yaml: cannot open the file");
  }
}
