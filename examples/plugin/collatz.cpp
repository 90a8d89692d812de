// An example plugin: a shared library that adds a process kind to kpn-run without rebuilding it.
//
//   build/bin/kpn-run examples/plugin/collatz.yaml --plugin build/lib/libkpn-example-plugin.so
//
// The library only has to register its kinds: the static KindRegistration object that KPN_REGISTER_KIND
// defines runs when kpn-run loads the library (dlopen), and adds the kind to the registry in libkpn,
// which the program and the plugin share.

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "networks/kinds.hpp"

namespace {

using i64 = std::int64_t;

// Steps of the Collatz map (n -> n/2 if n is even, else 3n+1) until n reaches 1; -1 past `max_steps`.
// Throws on what the map is not defined for, or on a value that would overflow 64 bits.
i64 collatz_steps(i64 n, i64 max_steps) {
  if (n < 1) throw std::domain_error(fmt::format("collatz: {} is not a positive integer", n));
  i64 steps = 0;
  while (n != 1) {
    if (steps == max_steps) return -1;
    if (n % 2 == 0) {
      n /= 2;
    } else {
      if (n > (std::numeric_limits<i64>::max() - 1) / 3) throw std::overflow_error("collatz: 3n+1 overflows 64 bits");
      n = 3 * n + 1;
    }
    ++steps;
  }
  return steps;
}

KPN_REGISTER_KIND(example_collatz, {
    .name = "example.collatz",
    .description = "for every positive integer n read, writes the number of Collatz steps (n -> n/2 or 3n+1) "
                   "that take n to 1, or -1 if that takes more than max_steps; fails on n < 1",
    .ports = {kpn::in_port("in", "i64", "positive integers"),
              kpn::out_port("out", "i64", "steps to reach 1")},
    .args = {kpn::arg_int("max_steps", 10'000, "give up (and write -1) after this many steps")},
    // The factory runs before the network starts: it checks the arguments (a throw here is reported as
    // a bad file) and takes the endpoints. The body it returns is the process.
    .factory = [](kpn::KindContext& ctx) -> kpn::UniqueFunction<void()> {
      const i64 max_steps = ctx.int_arg("max_steps");
      if (max_steps < 0) throw std::invalid_argument("max_steps must be >= 0");
      return [in = ctx.input<i64>("in"), out = ctx.output<i64>("out"), max_steps]() mutable {
        while (auto n = in.read()) out.write(collatz_steps(*n, max_steps));
      };
    }});

}  // namespace
