// Built-in kinds for streams of integers: source, sink, map, split, merge, ordered-merge, broadcast, add,
// prepend.

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "networks/kinds.hpp"
#include "networks/kinds/fan_out.hpp"
#include "networks/work.hpp"
#include "runtime/timers.hpp"

namespace kpn {
namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// Integer streams wrap around on overflow (two's complement, as documented in docs/topology.md): the
// arithmetic is done unsigned, where wrapping is defined, and converted back (modular since C++20).
i64 wrap_add(i64 a, i64 b) noexcept { return static_cast<i64>(static_cast<u64>(a) + static_cast<u64>(b)); }
i64 wrap_mul(i64 a, i64 b) noexcept { return static_cast<i64>(static_cast<u64>(a) * static_cast<u64>(b)); }

// FNV-1a over the values in order: equal for equal streams, different (almost surely) for reordered ones.
struct StreamHash {
  std::uint64_t h = 1469598103934665603ull;
  void add(i64 v) {
    auto u = static_cast<std::uint64_t>(v);
    for (int i = 0; i < 8; ++i) {
      h ^= (u >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
};

// The time between two values of a paced source, from its `rate` or `period_us` (at most one of them);
// 0: as fast as the channel takes them.
std::chrono::nanoseconds source_period(double rate, i64 period_us) {
  if (rate < 0) throw std::invalid_argument(fmt::format("rate must be >= 0 (messages per second), not {}", rate));
  if (period_us < 0) throw std::invalid_argument(fmt::format("period_us must be >= 0, not {}", period_us));
  if (rate > 0 && period_us > 0) throw std::invalid_argument("give rate or period_us, not both");
  if (period_us > 0) return std::chrono::microseconds(period_us);
  if (rate > 0) {
    if (rate > 1e9) throw std::invalid_argument(fmt::format("rate must be at most 1e9 messages per second, not {}", rate));
    return std::chrono::nanoseconds(static_cast<i64>(1e9 / rate + 0.5));
  }
  return std::chrono::nanoseconds(0);
}

KPN_REGISTER_KIND(source, {
    .name = "source",
    .description = "writes count integers start, start+step, ... then closes its output; with rate or period_us, "
                   "one value per period (kpn::sleep_until)",
    .ports = {out_port("out", "i64", "the integers")},
    .args = {arg_int("count", 1000, "how many"),
             arg_int("start", 0, "first value"),
             arg_int("step", 1, "increment"),
             arg_float("rate", 0.0, "values per second (0: as fast as the channel takes them)"),
             arg_int("period_us", 0, "microseconds between values (0: as fast as the channel takes them); not with rate")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      const i64 count = ctx.int_arg("count");
      if (count < 0) throw std::invalid_argument("count must be >= 0");
      const std::chrono::nanoseconds period = source_period(ctx.float_arg("rate"), ctx.int_arg("period_us"));
      return [out = ctx.output<i64>("out"), count, start = ctx.int_arg("start"), step = ctx.int_arg("step"),
              period]() mutable {
        if (period.count() == 0) {
          for (i64 i = 0; i < count; ++i) out.write(wrap_add(start, wrap_mul(i, step)));
          return;
        }
        // Value i is due one period after value i-1 was due; a source held back (a full channel) starts
        // again from now rather than catching up in a burst.
        auto due = std::chrono::steady_clock::now();
        for (i64 i = 0; i < count; ++i) {
          if (i > 0) {
            due += period;
            const auto now = std::chrono::steady_clock::now();
            if (due < now) due = now;
            kpn::sleep_until(due);
          }
          out.write(wrap_add(start, wrap_mul(i, step)));
        }
      };
    }});

KPN_REGISTER_KIND(sink, {
    .name = "sink",
    .description = "reads integers until end of stream (or limit) and prints 'label: count=N sum=S hash=H' "
                   "(hash: FNV-1a of the values in order)",
    .ports = {in_port("in", "i64", "the integers")},
    .args = {arg_string("label", "", "name printed with the result; default: the process name"),
             arg_int("limit", 0, "stop after this many values (0: read to the end); upstream writers then end quietly"),
             arg_bool("print_values", false, "also print every value on its own line")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      std::string label = ctx.string_arg("label");
      if (label.empty()) label = ctx.name();
      const i64 limit = ctx.int_arg("limit");
      if (limit < 0) throw std::invalid_argument("limit must be >= 0");
      return [in = ctx.input<i64>("in"), label, limit, print = ctx.bool_arg("print_values"),
              results = &ctx.results()]() mutable {
        i64 count = 0;
        i64 sum = 0;
        StreamHash hash;
        while (limit == 0 || count < limit) {
          auto v = in.read();
          if (!v) break;
          ++count;
          sum = wrap_add(sum, *v);
          hash.add(*v);
          if (print) results->line(fmt::format("{}", *v));
        }
        results->line(fmt::format("{}: count={} sum={} hash={:016x}", label, count, sum, hash.h));
      };
    }});

KPN_REGISTER_KIND(map, {
    .name = "map",
    .description = "writes in * mul + add for every input, after spinning work_us microseconds of CPU",
    .ports = {in_port("in", "i64"), out_port("out", "i64")},
    .args = {arg_int("mul", 1),
             arg_int("add", 0),
             arg_float("work_us", 0.0, "CPU microseconds spent per message (the Nornir paper's work unit)")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      const double us = ctx.float_arg("work_us");
      if (us < 0) throw std::invalid_argument("work_us must be >= 0");
      return [in = ctx.input<i64>("in"), out = ctx.output<i64>("out"), mul = ctx.int_arg("mul"), add = ctx.int_arg("add"),
              iterations = work::iterations_for_us(us)]() mutable {
        while (auto v = in.read()) {
          work::burn(iterations, static_cast<std::uint64_t>(*v));
          out.write(wrap_add(wrap_mul(*v, mul), add));
        }
      };
    }});

KPN_REGISTER_KIND(split, {
    .name = "split",
    .description = "deals its input round-robin over its outputs (value i to output i mod n); the share of an "
                   "output whose reader has gone is dropped, the others' shares do not change",
    .ports = {in_port("in", "i64"),
              out_array("out", "i64")},
    .args = {},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [in = ctx.input<i64>("in"), outs = FanOut<i64>::of(ctx, "out")]() mutable {
        // Dealing stays by position, not by the outputs still live: a reader leaving must not move the
        // values that the others receive.
        std::size_t next = 0;
        while (!outs.done()) {
          auto v = in.read();
          if (!v) return;
          outs.write(next, *v);
          next = (next + 1) % outs.size();
        }
      };
    }});

KPN_REGISTER_KIND(merge, {
    .name = "merge",
    .description = "reads its inputs round-robin, one value from each in turn, skipping inputs that have ended",
    .ports = {in_array("in", "i64"),
              out_port("out", "i64")},
    .args = {},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [ins = ctx.inputs<i64>("in"), out = ctx.output<i64>("out")]() mutable {
        std::vector<bool> open(ins.size(), true);
        std::size_t remaining = ins.size();
        for (std::size_t i = 0; remaining > 0; i = (i + 1) % ins.size()) {
          if (!open[i]) continue;
          if (auto v = ins[i].read()) {
            out.write(*v);
          } else {
            open[i] = false;
            --remaining;
          }
        }
      };
    }});

KPN_REGISTER_KIND(ordered_merge, {
    .name = "ordered-merge",
    .description = "merges ascending input streams into one ascending stream without duplicates "
                   "(a value present on several inputs is written once)",
    .ports = {in_array("in", "i64"), out_port("out", "i64")},
    .args = {},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [ins = ctx.inputs<i64>("in"), out = ctx.output<i64>("out")]() mutable {
        std::vector<std::optional<i64>> head(ins.size());
        for (std::size_t i = 0; i < ins.size(); ++i) head[i] = ins[i].read();
        for (;;) {
          std::optional<i64> least;
          for (const auto& h : head) {
            if (h && (!least || *h < *least)) least = h;
          }
          if (!least) return;  // every input has ended
          out.write(*least);
          for (std::size_t i = 0; i < ins.size(); ++i) {
            if (head[i] == least) head[i] = ins[i].read();
          }
        }
      };
    }});

KPN_REGISTER_KIND(broadcast, {
    .name = "broadcast",
    .description = "copies every input value to each of its outputs; goes on serving the others when a reader "
                   "has gone, until every output has gone or the input ends",
    .ports = {in_port("in", "i64"),
              out_array("out", "i64")},
    .args = {},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [in = ctx.input<i64>("in"), outs = FanOut<i64>::of(ctx, "out")]() mutable {
        while (!outs.done()) {
          auto v = in.read();
          if (!v) return;
          for (std::size_t i = 0; i < outs.size(); ++i) outs.write(i, *v);
        }
      };
    }});

KPN_REGISTER_KIND(add, {
    .name = "add",
    .description = "writes a + b for each pair of values read from a and b; ends when either ends",
    .ports = {in_port("a", "i64"),
              in_port("b", "i64"),
              out_port("out", "i64")},
    .args = {},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [a = ctx.input<i64>("a"), b = ctx.input<i64>("b"), out = ctx.output<i64>("out")]() mutable {
        for (;;) {
          auto x = a.read();
          if (!x) return;
          auto y = b.read();
          if (!y) return;
          out.write(wrap_add(*x, *y));
        }
      };
    }});

KPN_REGISTER_KIND(prepend, {
    .name = "prepend",
    .description = "writes value first, then copies its input: the initial token of a feedback loop",
    .ports = {in_port("in", "i64"), out_port("out", "i64")},
    .args = {arg_int("value", 0)},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [in = ctx.input<i64>("in"), out = ctx.output<i64>("out"), value = ctx.int_arg("value")]() mutable {
        out.write(value);
        while (auto v = in.read()) out.write(*v);
      };
    }});

}  // namespace
}  // namespace kpn
