// The scatter-gather kinds of the Nornir paper (section 4, Figure 2).

#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

#include "networks/kinds.hpp"
#include "networks/kinds/fan_out.hpp"
#include "networks/work.hpp"

namespace kpn {
namespace {

using i64 = std::int64_t;

KPN_REGISTER_KIND(sg_master, {
    .name = "scatter-gather.master",
    .description = "runs `rounds` rounds: sends the round number to every worker, then waits for every reply "
                   "(a barrier); prints 'name: rounds=R workers=N replies=X'",
    .ports = {out_array("out", "i64", "one per worker"),
              in_array("in", "i64", "one per worker")},
    .args = {arg_required("rounds", ArgType::Int, "m, the rounds")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      const i64 rounds = ctx.int_arg("rounds");
      if (rounds < 0) throw std::invalid_argument("rounds must be >= 0");
      auto outs = ctx.outputs<i64>("out");
      auto ins = ctx.inputs<i64>("in");
      if (outs.size() != ins.size()) {
        throw std::invalid_argument(fmt::format("{} outputs but {} inputs: every worker needs both", outs.size(), ins.size()));
      }
      // A worker whose input has gone is dropped (docs/topology.md, "End of stream and broken channels"),
      // and its replies are no longer awaited; the others go on.
      return [outs = FanOut<i64>(std::move(outs)), ins = std::move(ins), rounds, name = ctx.name(),
              results = &ctx.results()]() mutable {
        i64 replies = 0;
        for (i64 r = 0; r < rounds && !outs.done(); ++r) {
          for (std::size_t i = 0; i < outs.size(); ++i) outs.write(i, r);
          for (std::size_t i = 0; i < ins.size(); ++i) {
            if (!outs.live(i)) continue;
            auto& in = ins[i];
            auto v = in.read();
            if (!v) throw std::runtime_error("a worker ended before the last round");
            if (*v != r) throw std::runtime_error(fmt::format("reply for round {} in round {}", *v, r));
            ++replies;
          }
        }
        results->line(fmt::format("{}: rounds={} workers={} replies={}", name, rounds, outs.size(), replies));
      };
    }});

KPN_REGISTER_KIND(sg_worker, {
    .name = "scatter-gather.worker",
    .description = "for every message, spins work_us microseconds of CPU (64-bit divisions, calibrated to this "
                   "machine) and sends the message back",
    .ports = {in_port("in", "i64"), out_port("out", "i64")},
    .args = {arg_float("work_us", 100.0, "w, CPU microseconds per message")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      const double us = ctx.float_arg("work_us");
      if (us < 0) throw std::invalid_argument("work_us must be >= 0");
      return [in = ctx.input<i64>("in"), out = ctx.output<i64>("out"), iterations = work::iterations_for_us(us)]() mutable {
        while (auto v = in.read()) {
          work::burn(iterations, static_cast<std::uint64_t>(*v));
          out.write(*v);
        }
      };
    }});

}  // namespace
}  // namespace kpn
