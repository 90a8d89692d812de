// The example plugin (examples/plugin): a shared library whose kind kpn-run loads with --plugin.

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::example_plugin_path;
using kpn::test::kpn_run;
using kpn::test::quoted_path;

namespace {

std::int64_t collatz_steps(std::int64_t n) {
  std::int64_t steps = 0;
  for (; n != 1; ++steps) n = n % 2 == 0 ? n / 2 : 3 * n + 1;
  return steps;
}

std::string collatz_yaml() { return quoted_path(kpn::test::source_dir() + "/examples/plugin/collatz.yaml"); }

}  // namespace

TEST_CASE("kpn-run loads the example plugin's kind with --plugin and runs its config", "[runner]") {
  const auto r = kpn_run(collatz_yaml() + " --cpus 2 --plugin " + quoted_path(example_plugin_path()) + " --set count=1000");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::int64_t> steps;
  for (std::int64_t n = 1; n <= 1000; ++n) steps.push_back(collatz_steps(n));
  CHECK(r.out == kpn::test::sink_line("collatz", steps) + "\n");
}

TEST_CASE("kpn-run takes --plugin before the file too, one library per --plugin", "[runner]") {
  const auto r = kpn_run("--plugin " + quoted_path(example_plugin_path()) + " " + collatz_yaml() +
                         " --quiet --cpus 1 --set count=3");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == kpn::test::sink_line("collatz", {0, 1, 7}) + "\n");
}

TEST_CASE("kpn-run --kinds with --plugin describes the plugin's kinds too", "[runner]") {
  const auto r = kpn_run("--kinds --plugin " + quoted_path(example_plugin_path()));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("example.collatz\n") && Contains("arg  max_steps") && Contains("sink\n"));
}

TEST_CASE("without its plugin the example config names the unknown kind and exits 2", "[runner]") {
  const auto r = kpn_run(collatz_yaml() + " --validate");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("unknown kind 'example.collatz'"));
}

TEST_CASE("a plugin that cannot be loaded is a command-line error", "[runner]") {
  const auto r = kpn_run(collatz_yaml() + " --plugin /nonexistent/libnothing.so");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("cannot load plugin '/nonexistent/libnothing.so'"));
}

TEST_CASE("a plugin kind that throws at run time makes kpn-run exit 1", "[runner]") {
  // Collatz is undefined for 0, and the example kind says so by throwing.
  const auto file = kpn::test::write_scratch("collatz-zero.yaml", R"(network: collatz-zero
processes:
  numbers: { kind: source, args: { count: 3, start: 0 } }
  collatz: { kind: example.collatz }
  total: { kind: sink }
channels:
  - { from: numbers.out, to: collatz.in }
  - { from: collatz.out, to: total.in }
)");
  const auto failed = kpn_run(quoted_path(file) + " --cpus 1 --plugin " + quoted_path(example_plugin_path()));
  INFO(failed.err);
  CHECK(failed.exit_code == 1);
  CHECK_THAT(failed.err, Contains("collatz") && Contains("0 is not a positive integer"));
}
