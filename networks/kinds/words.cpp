// Built-in kinds for counting text: words.count (lines and words of a stream of lines) and words.total
// (sums the counts of several counters and prints them, as `wc -lw` does). Sums do not depend on the order
// the counts arrive in, so the total is the same under any schedule.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "networks/kinds.hpp"

namespace kpn {
namespace {

using i64 = std::int64_t;

// Words as GNU wc counts them in the C locale: white space (space, \t, \n, \v, \f, \r) ends a word, a
// printable ASCII byte starts one, and any other byte (a control character, a byte of a UTF-8 sequence)
// neither starts nor ends one. So a run of non-space bytes is a word if it holds a printable byte: an
// em dash alone between spaces is none, as for `LC_ALL=C wc -w`.
i64 count_words(std::string_view line) noexcept {
  i64 words = 0;
  bool in_word = false;
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' || (c >= '\t' && c <= '\r')) {
      words += in_word ? 1 : 0;
      in_word = false;
    } else if (c > ' ' && c < 0x7f) {
      in_word = true;
    }
  }
  return words + (in_word ? 1 : 0);
}

KPN_REGISTER_KIND(words_count, {
    .name = "words.count",
    .description = "counts the lines and words (as wc in the C locale) of its input; at its end writes the line "
                   "count to `lines` and the word count to `words`",
    .ports = {in_port("in", "string", "lines of text"), out_port("lines", "i64", "one value: lines read"),
              out_port("words", "i64", "one value: words read")},
    .args = {},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [in = ctx.input<std::string>("in"), lines_out = ctx.output<i64>("lines"),
              words_out = ctx.output<i64>("words")]() mutable {
        i64 lines = 0;
        i64 words = 0;
        while (auto line = in.read()) {
          ++lines;
          words += count_words(*line);
        }
        lines_out.write(lines);
        words_out.write(words);
      };
    }});

KPN_REGISTER_KIND(words_total, {
    .name = "words.total",
    .description = "sums every value of its `lines` inputs and of its `words` inputs and prints 'LINES WORDS label'",
    .ports = {in_array("lines", "i64", "line counts"), in_array("words", "i64", "word counts")},
    .args = {arg_string("label", "", "printed after the counts (a file name, as wc prints it); default: none")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [lines_in = ctx.inputs<i64>("lines"), words_in = ctx.inputs<i64>("words"), label = ctx.string_arg("label"),
              results = &ctx.results()]() mutable {
        auto sum = [](std::vector<Reader<i64>>& ins) {
          i64 total = 0;
          for (auto& in : ins) {
            while (auto v = in.read()) total += *v;
          }
          return total;
        };
        const i64 lines = sum(lines_in);
        const i64 words = sum(words_in);
        results->line(label.empty() ? fmt::format("{} {}", lines, words) : fmt::format("{} {} {}", lines, words, label));
      };
    }});

}  // namespace
}  // namespace kpn
