// names: the duplicate-name check a run makes of its initial network (runtime/duplicate_name.hpp), on
// 100,000 generated names of three shapes, against sorting the names themselves (the check before session 54).

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "benchmarks.hpp"
#include "runtime/duplicate_name.hpp"

namespace kpn_bench {
namespace {

constexpr int kNames = 100'000;

struct Shape {
  const char* metric;  // the metric's name stem
  const char* format;  // fmt format of the i-th name
};
constexpr Shape kShapes[] = {{"p_i", "p{}"}, {"stage_i", "stage[{}]"}, {"dotted", "network.worker.{}.filter"}};

}  // namespace

Result bench_names(const Options& o) {
  Result r;
  r.bench = "names";
  r.what = "the duplicate-name check of a network of 100,000 processes, in ms: by keys (kpn) and by sorting the "
           "names as strings (before); names p0.., stage[0].. and network.worker.0.filter..";
  r.config = {{"n", std::to_string(kNames)}};
  for (const Shape& shape : kShapes) {
    std::vector<std::string> names;
    names.reserve(kNames);
    for (int i = 0; i < kNames; ++i) names.push_back(fmt::format(fmt::runtime(shape.format), i));
    Metric& keys = r.metric(std::string(shape.metric) + "_keys_ms", "ms");
    Metric& strings = r.metric(std::string(shape.metric) + "_strings_ms", "ms");
    for (int rep = 0; rep < o.reps; ++rep) {
      double start = now_s();
      const std::vector<std::string_view> views(names.begin(), names.end());
      if (kpn::find_duplicate_name(views)) throw std::runtime_error("names: a duplicate among distinct names");
      keys.samples.push_back((now_s() - start) * 1e3);
      start = now_s();
      std::vector<std::string_view> sorted(names.begin(), names.end());
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
        throw std::runtime_error("names: a duplicate among distinct names");
      }
      strings.samples.push_back((now_s() - start) * 1e3);
    }
  }
  return r;
}

}  // namespace kpn_bench
