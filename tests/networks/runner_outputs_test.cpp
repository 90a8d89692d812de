// kpn-run's outputs and what it says about them: results written or a clear error (exit 2 when found
// before the run, 1 after it), --version, --kinds --json, the version in the report, and plugins that
// fail while loading.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::config_path;
using kpn::test::kpn_run;
using kpn::test::quoted_path;

namespace {

const std::string kRing = config_path("ring.yaml") + " --cpus 1 --quiet --set nodes=3 laps=2";

// Whether python3 parses `path` as JSON whose top level is an object holding `key` (true when no python3).
bool parses_as_json_with(const std::filesystem::path& path, const std::string& key) {
  const std::string check = "python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding=\"utf-8\")); "
                            "sys.exit(0 if isinstance(d, dict) and sys.argv[2] in d else 3)' " +
                            quoted_path(path) + " " + key + " 2>/dev/null";
  const int status = std::system(check.c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    WARN("python3 not found: the JSON was not parsed");
    return true;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The version in the top-level CMakeLists.txt's project() call: the one place it is written.
std::string project_version() {
  const std::string text = kpn::test::read_text(kpn::test::source_dir() + "/CMakeLists.txt");
  const std::string key = "project(kpn VERSION ";
  const auto at = text.find(key);
  REQUIRE(at != std::string::npos);
  const auto from = at + key.size();
  return text.substr(from, text.find_first_of(" )", from) - from);
}

}  // namespace

TEST_CASE("kpn-run --stats-json to a full device exits 1, naming the path and the run's own status", "[runner]") {
  const auto r = kpn_run(kRing + " --stats-json /dev/full");
  CHECK(r.exit_code == 1);
  CHECK(r.out == "node[0]: laps=2 hops=6\n");  // the run itself happened
  CHECK_THAT(r.err, Contains("cannot write '/dev/full': No space left on device") &&
                        Contains("the run itself: ok, exit status 0"));
}

TEST_CASE("kpn-run --stats-json into a missing directory exits 2 before running", "[runner]") {
  const auto r = kpn_run(kRing + " --stats-json /nonexistent-dir/stats.json");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());  // nothing ran
  CHECK_THAT(r.err, Contains("the directory '/nonexistent-dir' does not exist"));
}

TEST_CASE("kpn-run --stats-json naming a directory exits 2 before running", "[runner]") {
  const auto r = kpn_run(kRing + " --stats-json " + quoted_path(kpn::test::scratch_dir()));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("it is a directory"));
}

TEST_CASE("kpn-run --stats-json followed by an option is an error, not a file named after the option", "[runner]") {
  const auto cwd = std::filesystem::current_path();
  const auto r = kpn_run(config_path("ring.yaml") + " --cpus 1 --set nodes=3 laps=2 --stats-json -q");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("'-q' looks like an option"));
  CHECK_FALSE(std::filesystem::exists(cwd / "-q"));
}

TEST_CASE("kpn-run --dot to a full device exits 1 with a message", "[runner]") {
  const int status = std::system(("'" + kpn::test::kpn_run_path() + "' " + config_path("ring.yaml") +
                                  " --dot >/dev/full 2>/dev/null")
                                     .c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
}

TEST_CASE("kpn-run exits 1 when the network's results cannot be written to stdout", "[runner]") {
  const auto err = kpn::test::scratch_file("full-stdout.txt");
  const int status = std::system(("'" + kpn::test::kpn_run_path() + "' " + kRing + " >/dev/full 2>" + quoted_path(err)).c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK_THAT(kpn::test::read_text(err), Contains("cannot write the network's results to stdout: No space left on device") &&
                                            Contains("the run itself: ok, exit status 0"));
}

TEST_CASE("kpn-run --version prints the project's version and exits 0", "[runner]") {
  const auto r = kpn_run("--version");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("kpn-run " + project_version()));
}

TEST_CASE("the JSON report records the kpn version", "[runner]") {
  const auto json = kpn::test::scratch_file("version.json");
  const auto r = kpn_run(kRing + " --stats-json " + quoted_path(json));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(kpn::test::read_text(json), Contains("\"kpn_version\":\"" + project_version() + "\""));
  CHECK(parses_as_json_with(json, "kpn_version"));
}

TEST_CASE("invalid UTF-8 from the command line is replaced by U+FFFD in the JSON report", "[runner]") {
  const auto file = kpn::test::write_scratch("label.yaml", R"(network: label
params: { label: x }
processes:
  src: { kind: source, args: { count: 2 } }
  snk: { kind: sink, args: { label: $label } }
channels:
  - { from: src.out, to: snk.in }
)");
  const auto json = kpn::test::scratch_file("utf8.json");
  const auto r = kpn_run(quoted_path(file) + " --cpus 1 --quiet --set \"label=$(printf 'a\\377\\303b')\" --stats-json " + quoted_path(json));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = kpn::test::read_text(json);
  CHECK_THAT(text, Contains("\"label\":\"a\xEF\xBF\xBD\xEF\xBF\xBD" "b\""));
  CHECK(parses_as_json_with(json, "params"));
}

TEST_CASE("kpn-run --kinds --json describes every kind with its ports and typed arguments as one JSON object", "[runner]") {
  const auto out = kpn::test::scratch_file("kinds.json");
  const auto r = kpn_run("--kinds --json");
  REQUIRE(r.exit_code == 0);
  std::ofstream(out) << r.out;
  CHECK(parses_as_json_with(out, "kinds"));
  for (const kpn::KindSpec* k : kpn::kind_list()) {
    // Registered by this test program only, or by a plugin another test case loaded into it.
    if (k->name.rfind("test.", 0) == 0 || k->name.rfind("example.", 0) == 0) continue;
    CAPTURE(k->name);
    CHECK_THAT(r.out, Contains("{\"name\":\"" + k->name + "\""));
  }
  CHECK_THAT(r.out, Contains(R"({"name":"limit","type":"integer","required":false,"default":0,)"));
  CHECK_THAT(r.out, Contains(R"({"name":"rounds","type":"integer","required":true,"default":null,)"));
  CHECK_THAT(r.out, Contains(R"({"name":"out","direction":"out","type":"i64","array":true,)"));
}

TEST_CASE("a plugin that throws while loading makes kpn-run exit 2 naming the library", "[runner]") {
  // A second copy of the example plugin registers its kind again, which the registry refuses by throwing
  // from the copy's static constructor, inside dlopen.
  const auto copy = kpn::test::scratch_file("libkpn-plugin-copy.so");
  std::filesystem::copy_file(kpn::test::example_plugin_path(), copy);
  const auto r = kpn_run("--kinds --plugin " + quoted_path(kpn::test::example_plugin_path()) + " --plugin " + quoted_path(copy));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("plugin '" + copy.string() + "' failed while loading") &&
                        Contains("the process kind 'example.collatz' is registered twice"));
}

TEST_CASE("kpn-run given a directory as the file says it is a directory", "[runner]") {
  const auto r = kpn_run(quoted_path(kpn::test::scratch_dir()));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains(kpn::test::scratch_dir().string() + ": is a directory"));
}

TEST_CASE("kpn-run --trace writes a trace of scatter-gather that agrees with --stats-json", "[runner][trace]") {
  const auto trace = kpn::test::scratch_file("sg-trace.json");
  const auto stats = kpn::test::scratch_file("sg-stats.json");
  const auto r = kpn_run(config_path("scatter-gather.yaml") + " --cpus 2 --quiet --set workers=8 rounds=20 --trace " +
                         quoted_path(trace) + " --stats-json " + quoted_path(stats));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(kpn::test::read_text(stats), Contains("\"trace\":{\"file\":"));
  const std::string check = "python3 '" + kpn::test::source_dir() + "/scripts/check_trace.py' " + quoted_path(trace) + " " +
                            quoted_path(stats);
  const int status = std::system(check.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("kpn-run --trace into a missing directory exits 2 before running", "[runner][trace]") {
  const auto r = kpn_run(kRing + " --trace /nonexistent-dir/trace.json");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("--trace") && Contains("the directory '/nonexistent-dir' does not exist"));
}

TEST_CASE("kpn-run --trace - is refused: stdout carries the network's results", "[runner][trace]") {
  const auto r = kpn_run(kRing + " --trace -");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("stdout carries the network's results"));
}

TEST_CASE("kpn-run says when --trace-limit cut the trace", "[runner][trace]") {
  const auto trace = kpn::test::scratch_file("cut-trace.json");
  const auto r = kpn_run(kRing + " --trace " + quoted_path(trace) + " --trace-limit 10");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("the trace is cut") && Contains("--trace-limit 10"));
}
