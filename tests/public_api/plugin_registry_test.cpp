// A plugin loaded into a program registers its kinds in that program's libkpn (this program links
// libkpn.so, as a user's does; kpn-tests links the layers' objects and has registries of its own).

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "networks/networks_support.hpp"

namespace {

std::int64_t collatz_steps(std::int64_t n) {
  std::int64_t steps = 0;
  for (; n != 1; ++steps) n = n % 2 == 0 ? n / 2 : 3 * n + 1;
  return steps;
}

}  // namespace

TEST_CASE("the example plugin registers its kind in the loading program's registry", "[networks]") {
  void* handle = dlopen(kpn::test::example_plugin_path().c_str(), RTLD_NOW | RTLD_GLOBAL);
  INFO((handle == nullptr ? dlerror() : ""));
  REQUIRE(handle != nullptr);  // kept loaded: the registry now points into it
  const kpn::KindSpec* kind = kpn::find_kind("example.collatz");
  REQUIRE(kind != nullptr);
  CHECK(kind->port("in") != nullptr);
  CHECK(kind->port("out") != nullptr);
  const auto net = kpn::resolve(kpn::load_topology_file(kpn::test::source_dir() + "/examples/plugin/collatz.yaml"),
                                {{"count", "27"}});
  std::vector<std::int64_t> steps;
  for (std::int64_t n = 1; n <= 27; ++n) steps.push_back(collatz_steps(n));
  CHECK(kpn::test::run_lines(net, "ws-last", 2) == std::vector<std::string>{kpn::test::sink_line("collatz", steps)});
}
