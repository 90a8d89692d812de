// build/bin/kpn-run end to end: results on stdout, exit codes, --stats-json, --validate, --dot.
// Exit status: 0 success; 1 the network failed at run time; 2 the command line or the file is wrong.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using kpn::test::config_path;
using kpn::test::kpn_run;
using kpn::test::quoted_path;
using kpn::test::write_scratch;

namespace {

// A node of a ring that is no ring: it reads its token back from a source that runs dry, and throws
// "the ring was broken" at run time.
const char* kBrokenRing = R"(network: broken-ring
processes:
  src: { kind: source, args: { count: 1 } }
  node: { kind: ring.node, args: { laps: 5 } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: node.in }
  - { from: node.out, to: snk.in }
)";

// A loop without an initial token: every process waits to read, for good.
const char* kTrueDeadlock = R"(network: no-token
processes:
  add: { kind: add }
  fork: { kind: broadcast }
  snk: { kind: sink }
channels:
  - { from: add.out, to: fork.in }
  - { from: fork.out, to: add.a }
  - { from: fork.out, to: add.b }
  - { from: fork.out, to: snk.in }
)";

const std::vector<std::string> kRequiredJsonKeys = {"network", "scheduler", "cpus", "wall_s", "processes", "messages",
                                                    "context_switches", "steal_attempts", "steals",
                                                    "steal_attempts_per_s", "workers"};

}  // namespace

TEST_CASE("kpn-run prints the network's results on stdout, a summary on stderr, and exits 0", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --cpus 2 --set nodes=4 laps=10");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "node[0]: laps=10 hops=40\n");
  CHECK_THAT(r.err, Contains("wall") && Contains("messages") && Contains("context switches") &&
                        Contains("steal attempts") && Contains("busy"));
}

TEST_CASE("kpn-run --quiet prints no summary", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --cpus 1 --quiet --set nodes=4 laps=10");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "node[0]: laps=10 hops=40\n");
  CHECK_THAT(r.err, !Contains("context switches") && !Contains("steal attempts"));
}

TEST_CASE("kpn-run exits 1 when a process throws at run time, naming it", "[runner]") {
  const auto file = write_scratch("broken-ring.yaml", kBrokenRing);
  const auto r = kpn_run(quoted_path(file) + " --cpus 2");
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("node") && Contains("the ring was broken"));
}

TEST_CASE("kpn-run exits 1 on a deadlock that cannot be resolved", "[runner]") {
  const auto file = write_scratch("no-token.yaml", kTrueDeadlock);
  const auto r = kpn_run(quoted_path(file) + " --cpus 2");
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("deadlock"));
}

TEST_CASE("kpn-run exits 2 on a bad file, printing each diagnostic with its location", "[runner]") {
  const auto file = write_scratch("bad.yaml", R"(network: bad
processes:
  src: { kind: sorce }
  snk: { kind: sink, args: { cout: 1 } }
channels:
  - { from: src.out, to: snk.in }
)");
  const auto r = kpn_run(quoted_path(file));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("error: " + file.string() + ":3:16: process 'src': unknown kind 'sorce'"));
  CHECK_THAT(r.err, Contains("error: " + file.string() + ":4:30: process 'snk': kind 'sink' has no argument 'cout'"));
}

TEST_CASE("kpn-run exits 2 on a file that does not exist", "[runner]") {
  const auto r = kpn_run("/nonexistent/network.yaml");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("/nonexistent/network.yaml: cannot open the file"));
}

TEST_CASE("kpn-run exits 2 on an unknown scheduler, listing the known ones", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --scheduler no-such-policy");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("no-such-policy") && Contains("ws-cur") && Contains("ws-last"));
}

TEST_CASE("kpn-run exits 2 on a --set of an unknown parameter", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --set nodez=4");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("'nodez' is not a parameter") && Contains("did you mean 'nodes'?"));
}

TEST_CASE("kpn-run exits 2 on a --set without a value", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --set nodes");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("expected key=value"));
}

TEST_CASE("kpn-run exits 2 on a --set value of the wrong type", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --set nodes=many");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("expected an integer, got 'many' (parameter 'nodes', from --set nodes=many)"));
}

TEST_CASE("kpn-run exits 2 on an unknown option", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --no-such-option");
  CHECK(r.exit_code == 2);
}

TEST_CASE("kpn-run exits 2 when a kind rejects its arguments before the run", "[runner]") {
  const auto file = write_scratch("negative.yaml", R"(network: negative
processes:
  src: { kind: source, args: { count: -1 } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  const auto r = kpn_run(quoted_path(file));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("process 'src' (kind 'source'): count must be >= 0"));
}

TEST_CASE("kpn-run --stats-json PATH writes one JSON object with the documented keys", "[runner]") {
  const auto json = kpn::test::scratch_file("stats.json");
  const auto r = kpn_run(config_path("scatter-gather.yaml") + " --cpus 2 --scheduler ws-cur --stats-json " +
                         quoted_path(json) + " --set workers=4 rounds=5 work_us=0");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "master: rounds=5 workers=4 replies=20\n");
  const std::string text = kpn::test::read_text(json);
  INFO(text);
  CHECK_THAT(text, StartsWith("{"));
  CHECK(text.find('\n') == text.size() - 1);  // one line
  CHECK(text[text.size() - 2] == '}');
  for (const auto& key : kRequiredJsonKeys) {
    CAPTURE(key);
    CHECK_THAT(text, Contains("\"" + key + "\":"));
  }
  CHECK_THAT(text, Contains(R"("network":"scatter-gather")"));
  CHECK_THAT(text, Contains(R"("scheduler":"ws-cur")"));
  CHECK_THAT(text, Contains(R"("cpus":2)"));
  CHECK_THAT(text, Contains(R"("processes":5)"));
  CHECK_THAT(text, Contains(R"("messages":40)"));
  CHECK_THAT(text, Contains(R"("workers":[{)"));
  CHECK_THAT(text, Contains(R"("status":"ok")"));
  // The object parses as JSON (where a Python is at hand to say so).
  const std::string check = "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
                            "sys.exit(0 if isinstance(d, dict) and len(d[\"workers\"]) == 2 else 3)' " +
                            quoted_path(json) + " 2>/dev/null";
  const int status = std::system(check.c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    WARN("python3 not found: the JSON was checked by key only");
  } else {
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  std::filesystem::remove(json);
}

TEST_CASE("kpn-run --stats-json - writes the JSON object as the last line of stdout", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --cpus 1 --quiet --stats-json - --set nodes=3 laps=2");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, StartsWith("node[0]: laps=2 hops=6\n{\""));
  for (const auto& key : kRequiredJsonKeys) {
    CAPTURE(key);
    CHECK_THAT(r.out, Contains("\"" + key + "\":"));
  }
}

TEST_CASE("kpn-run --stats-json still writes the report when the run fails", "[runner]") {
  const auto file = write_scratch("broken-ring.yaml", kBrokenRing);
  const auto r = kpn_run(quoted_path(file) + " --cpus 1 --stats-json - --quiet");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Contains(R"("status":"failed")") && Contains(R"("error":)") && Contains(R"("network":"broken-ring")"));
}

TEST_CASE("kpn-run --validate checks the file and exits 0 without running it", "[runner]") {
  // A scatter-gather of 2000 rounds of a second each would take hours if it ran.
  const auto r = kpn_run(config_path("scatter-gather.yaml") + " --validate --set rounds=2000 work_us=1000000");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("ok: network 'scatter-gather', 51 processes, 100 channels"));
  CHECK_THAT(r.out, !Contains("master:"));
}

TEST_CASE("kpn-run --validate exits 2 on a bad file", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --validate --set nodes=0");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("replicas: 0 is out of range"));
}

TEST_CASE("kpn-run --validate also runs the kinds' own argument checks", "[runner]") {
  const auto file = write_scratch("negative.yaml", R"(network: negative
processes:
  src: { kind: source, args: { count: -1 } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
)");
  const auto r = kpn_run(quoted_path(file) + " --validate");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("process 'src' (kind 'source'): count must be >= 0"));
}

TEST_CASE("kpn-run --dot prints the network as a Graphviz digraph", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --dot --set nodes=3");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, StartsWith("digraph \"ring\" {"));
  CHECK_THAT(r.out, Contains("label=\"node[2]\\nring.node\"") && Contains("p2 -> p0"));
  CHECK(r.out.substr(r.out.size() - 2) == "}\n");
}

TEST_CASE("kpn-run --help lists the schedulers and the process kinds", "[runner]") {
  const auto r = kpn_run("--help");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("--scheduler") && Contains("--stats-json") && Contains("ws-cur") && Contains("ws-last") &&
                        Contains("scatter-gather.worker") && Contains("ring.node"));
}

TEST_CASE("kpn-run --kinds describes every kind's ports and arguments", "[runner]") {
  const auto r = kpn_run("--kinds");
  CHECK(r.exit_code == 0);
  for (const kpn::KindSpec* k : kpn::kind_list()) {
    if (k->name.rfind("test.", 0) == 0 || k->name.rfind("example.", 0) == 0) continue;  // not in kpn-run
    CAPTURE(k->name);
    CHECK_THAT(r.out, Contains(k->name + "\n  "));
  }
  CHECK_THAT(r.out, Contains("arg  rounds     integer (required)"));
}

TEST_CASE("kpn-run --kinds after a file describes the kinds instead of running the file", "[runner]") {
  const auto r = kpn_run(config_path("ring.yaml") + " --kinds");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("ring.node\n") && !Contains("node[0]: laps="));
}

TEST_CASE("kpn-run --measure-t0 prints T0 as one positive number and exits 0 without a file", "[runner]") {
  const auto r = kpn_run("--measure-t0");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  REQUIRE(!r.out.empty());
  CHECK(r.out.back() == '\n');
  CHECK(r.out.find_first_not_of("0123456789\n") == std::string::npos);  // an integer, nothing else
  CHECK(std::stod(r.out) > 0);
}
