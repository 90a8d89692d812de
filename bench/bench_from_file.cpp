// from-file: what kpn-run does with a topology file before its network runs, for a pipeline of 100,000
// stages (configs/pipeline.yaml's text, `stages=100000 count=1 capacity=1`): parse it, resolve it (every
// replica and connection expanded and checked, networks/resolve.cpp), build it (the kinds make the processes,
// the channels are made, networks/builder.cpp), and free both. Nothing runs; the chain benchmark measures
// the runtime's part of the same shape.

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "benchmarks.hpp"
#include "networks/builder.hpp"
#include "networks/resolved.hpp"
#include "networks/yaml_loader.hpp"

namespace kpn_bench {
namespace {

constexpr const char* kStages = "100000";

// configs/pipeline.yaml, inlined so that the benchmark needs no source tree.
constexpr const char* kPipeline = R"(network: pipeline
params:
  stages: 8
  count: 100000
  work_us: 0
  capacity: 4
processes:
  source:
    kind: source
    args: { count: $count }
  stage:
    kind: map
    replicas: $stages
    args: { add: 1, work_us: $work_us }
  sink:
    kind: sink
    args: { label: pipeline }
channels:
  - { from: source.out, to: "stage[0].in", capacity: $capacity }
  - { from: stage.out, to: stage.in, shift: 1, wrap: false, capacity: $capacity }
  - { from: "stage[-1].out", to: sink.in, capacity: $capacity }
)";

}  // namespace

Result bench_from_file(const Options& o) {
  Result r;
  r.bench = "from-file";
  r.what = "a pipeline of 100,000 stages from its YAML text, as kpn-run prepares it: parse (once), resolve, build, "
           "free (ms each); nothing runs";
  r.config = {{"stages", kStages}, {"count", "1"}, {"capacity", "1"}};
  const std::vector<std::pair<std::string, std::string>> sets{{"stages", kStages}, {"count", "1"}, {"capacity", "1"}};
  Metric& parse = r.metric("parse_ms", "ms");
  Metric& resolve = r.metric("resolve_ms", "ms");
  Metric& build = r.metric("build_ms", "ms");
  Metric& release = r.metric("free_ms", "ms");
  kpn::ResultSink discard([](std::string_view) {});
  // Parsed once: the text is small, and parsed again after a repetition had freed its network, the first
  // allocations would pay for glibc consolidating the hundreds of thousands of chunks just freed (about 20 ms).
  const double t0 = now_s();
  const kpn::Topology topology = kpn::parse_topology(kPipeline, "pipeline.yaml");
  parse.samples.push_back((now_s() - t0) * 1e3);
  for (int rep = 0; rep < o.reps; ++rep) {
    const double t1 = now_s();
    auto resolved = std::make_unique<kpn::ResolvedNetwork>(kpn::resolve(topology, sets));
    const double t2 = now_s();
    auto network = std::make_unique<kpn::Network>(kpn::build_network(*resolved, discard));
    const double t3 = now_s();
    if (resolved->processes.size() != 100'002) throw std::runtime_error("from-file: the pipeline did not expand");
    network.reset();
    resolved.reset();
    const double t4 = now_s();
    resolve.samples.push_back((t2 - t1) * 1e3);
    build.samples.push_back((t3 - t2) * 1e3);
    release.samples.push_back((t4 - t3) * 1e3);
  }
  return r;
}

}  // namespace kpn_bench
