// A ring of processes passing a token around.

#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

#include "networks/kinds.hpp"
#include "networks/work.hpp"

namespace kpn {
namespace {

using i64 = std::int64_t;

KPN_REGISTER_KIND(ring_node, {
    .name = "ring.node",
    .description = "a node of a ring (replicate it and connect node.out to node.in with shift 1): replica 0 "
                   "injects `tokens` tokens, every node adds 1 to each token and forwards it; after `laps` laps "
                   "replica 0 prints 'name: laps=L tokens=T hops=H' (H: the hops of all tokens) and stops, and "
                   "the ring winds down",
    .ports = {in_port("in", "i64"), out_port("out", "i64")},
    .args = {arg_int("laps", 100),
             arg_int("tokens", 1, "tokens travelling the ring at once (its parallelism)"),
             arg_float("work_us", 0.0, "CPU microseconds spent per hop")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      const i64 laps = ctx.int_arg("laps");
      if (laps < 1) throw std::invalid_argument("laps must be >= 1");
      const i64 tokens = ctx.int_arg("tokens");
      if (tokens < 1) throw std::invalid_argument("tokens must be >= 1");
      const double us = ctx.float_arg("work_us");
      if (us < 0) throw std::invalid_argument("work_us must be >= 0");
      return [in = ctx.input<i64>("in"), out = ctx.output<i64>("out"), laps, tokens, first = ctx.replica() == 0,
              iterations = work::iterations_for_us(us), name = ctx.name(), results = &ctx.results()]() mutable {
        auto hop = [&](i64 token) {
          work::burn(iterations, static_cast<std::uint64_t>(token));
          out.write(token + 1);
        };
        if (!first) {
          while (auto t = in.read()) hop(*t);
          return;
        }
        for (i64 k = 0; k < tokens; ++k) hop(0);
        i64 hops = 0;
        for (i64 lap = 1; lap <= laps; ++lap) {
          for (i64 k = 0; k < tokens; ++k) {
            auto t = in.read();
            if (!t) throw std::runtime_error("the ring was broken");
            if (lap == laps) {
              hops += *t;
            } else {
              hop(*t);
            }
          }
        }
        results->line(tokens == 1 ? fmt::format("{}: laps={} hops={}", name, laps, hops)
                                  : fmt::format("{}: laps={} tokens={} hops={}", name, laps, tokens, hops));
        // Returning closes `out`: the ring winds down.
      };
    }});

}  // namespace
}  // namespace kpn
