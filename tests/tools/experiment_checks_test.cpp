// tools/experiment.py's sanity checks, end to end: the driver runs a fake kpn-run (tests/tools/fake_kpn_run.py,
// through --runner) that reports the wall times a crafted sweep tells it to, among them an impossible speedup
// of 10 on 2 CPUs and runs that spread by 100 %, on a machine whose load average (a crafted file, through
// KPN_EXPERIMENT_LOADAVG) says it is busy. Checks the warnings on stderr, the CSV's flags column, meta.json
// and the SVG beside the PNG, and that the same driver does not flag sane points or a point within the 2 %
// tolerance.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "networks/networks_support.hpp"
#include "tools/driver_support.hpp"

using kpn::test::kPython;
using kpn::test::read_text;
using kpn::test::scratch_file;
using kpn::test::source_dir;
using kpn::test::split;
using kpn::test::write_scratch;

namespace {

// Five networks as the grid's points (the fake ignores the network file and reads --set): on 1 CPU every run
// takes wall_1 seconds, on 2 CPUs wall_n, each times 1 + jitter * k for the k-th run of its configuration.
// With --repeat 3:
//   impossible: 1 s against 0.1 s, speedup 10 > 2 * 1.02;
//   noisy:      1, 1.5, 2 s and 0.6, 0.9, 1.2 s: spread 100 % on both CPU counts, speedup 1.5 / 0.9 = 1.67;
//   ceiling:    speedup 1 / 0.4926 = 2.030, within the 2 % tolerance (2.04 on 2 CPUs);
//   over:       speedup 1 / 0.4878 = 2.050, beyond it;
//   sane:       speedup 1.01 / 0.5555 = 1.82, spread 2 %.
std::string sweep_text(const std::string& name, const std::string& figure) {
  return "name: " + name + "\n" +
         "title: \"Fake runs\"\n"
         "network:\n"
         "  - { name: impossible, file: configs/pipeline.yaml, set: { wall_1: 1.0, wall_n: 0.1, jitter: 0 } }\n"
         "  - { name: noisy, file: configs/pipeline.yaml, set: { wall_1: 1.0, wall_n: 0.6, jitter: 0.5 } }\n"
         "  - { name: ceiling, file: configs/pipeline.yaml, set: { wall_1: 1.0, wall_n: 0.4926, jitter: 0 } }\n"
         "  - { name: over, file: configs/pipeline.yaml, set: { wall_1: 1.0, wall_n: 0.4878, jitter: 0 } }\n"
         "  - { name: sane, file: configs/pipeline.yaml, set: { wall_1: 1.0, wall_n: 0.55, jitter: 0.01 } }\n"
         "schedulers: [ws-last]\n"
         "cpus: [1, N]\n"
         "figure: " + figure + "\n";
}

// results.csv as "network cpus" -> flags cell, and its header.
std::map<std::string, std::string> flags_by_row(const std::filesystem::path& csv, std::string& header) {
  std::map<std::string, std::string> flags;
  std::ifstream in(csv);
  std::getline(in, header);
  const auto columns = split(header, ',');
  for (std::string line; std::getline(in, line);) {
    auto cells = split(line, ',');
    cells.resize(columns.size());  // an empty last cell
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < columns.size(); ++i) row[columns[i]] = cells[i];
    flags[row["network"] + " " + row["cpus"]] = row["flags"];
  }
  return flags;
}

struct Driver {
  int status;
  std::string out;
  std::string err;
};

// Runs the driver on `sweep` with the fake runner, a load average file holding `loadavg`, and `options`.
Driver run_driver(const std::filesystem::path& sweep, const std::filesystem::path& out_dir, const std::string& loadavg,
                  const std::string& options) {
  const auto state = scratch_file("fake-state");
  std::filesystem::create_directories(state);
  const auto loadavg_file = write_scratch("loadavg", loadavg + "\n");
  const auto out = scratch_file("driver.out");
  const auto err = scratch_file("driver.err");
  const std::string command = "KPN_FAKE_STATE='" + state.string() + "' KPN_EXPERIMENT_LOADAVG='" +
                              loadavg_file.string() + "' " + kPython + " '" + source_dir() +
                              "/tools/experiment.py' '" + sweep.string() + "' --runner '" + source_dir() +
                              "/tests/tools/fake_kpn_run.py' --cpus 2 --repeat 3 --out '" + out_dir.string() +
                              "' " + options + " >'" + out.string() + "' 2>'" + err.string() + "' </dev/null";
  const int status = std::system(command.c_str());
  return {status, read_text(out), read_text(err)};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("The experiment driver flags an impossible speedup, a wide spread and a busy machine",
          "[tools][experiment]") {
  KPN_SKIP_IF(kpn::test::python_cannot_run_driver());
  const auto out_dir = scratch_file("experiment-checks");
  const auto sweep =
      write_scratch("fake.yaml", sweep_text("fake", "{ kind: bars, x: network, y: [speedup, wall_median_s] }"));
  const Driver run = run_driver(sweep, out_dir, "100.00 50.00 20.00 3/200 1234", "");
  INFO("stdout:\n" << run.out << "\nstderr:\n" << run.err);
  REQUIRE(run.status == 0);  // warnings, not failures

  // Loud on stderr: each flagged row with its numbers and why, the busy machine, and a count at the end.
  CHECK(contains(run.err,
                 "experiment: WARNING: fake: network=impossible ws-last on 2 CPUs [speedup>cpus], speedup 10.00"));
  CHECK(contains(run.err, "speedup 10.00 on 2 CPUs is impossible (more than 2 x 1.02)"));
  CHECK(contains(run.err, "experiment: WARNING: fake: network=noisy ws-last on 1 CPU [spread>25%], speedup 1.00, "
                          "wall 1 to 2 s (spread 100%)"));
  CHECK(contains(run.err, "experiment: WARNING: fake: network=noisy ws-last on 2 CPUs [spread>25%], speedup 1.67"));
  CHECK(contains(run.err, "experiment: WARNING: fake: the machine is not idle: load average 100.00 50.00 20.00"));
  CHECK(contains(run.err, "experiment: WARNING: fake: network=over ws-last on 2 CPUs [speedup>cpus], speedup 2.05"));
  CHECK(contains(run.err, "experiment: WARNING: fake: 4 of 10 rows flagged"));
  CHECK_FALSE(contains(run.err, "WARNING: fake: network=ceiling"));  // (the progress lines name every point)
  CHECK_FALSE(contains(run.err, "WARNING: fake: network=sane"));
  CHECK_FALSE(contains(run.err, "WARNING: fake: network=impossible ws-last on 1 CPU"));

  const auto dir = out_dir / "fake";
  std::string header;
  const auto flags = flags_by_row(dir / "results.csv", header);
  CHECK(header.size() >= 6);
  CHECK(header.compare(header.size() - 6, 6, ",flags") == 0);
  REQUIRE(flags.size() == 10);
  CHECK(flags.at("impossible 1").empty());
  CHECK(flags.at("impossible 2") == "speedup>cpus");
  CHECK(flags.at("noisy 1") == "spread>25%");
  CHECK(flags.at("noisy 2") == "spread>25%");
  CHECK(flags.at("ceiling 1").empty());
  CHECK(flags.at("ceiling 2").empty());  // 2.03 on 2 CPUs: inside the tolerance
  CHECK(flags.at("over 1").empty());
  CHECK(flags.at("over 2") == "speedup>cpus");  // 2.05: beyond it
  CHECK(flags.at("sane 1").empty());
  CHECK(flags.at("sane 2").empty());

  // meta.json: the load before and after, the machine, the version from the runner, the count of flags.
  const std::string meta = read_text(dir / "meta.json");
  CHECK(contains(meta, "\"load_average_before\": {\n    \"1m\": 100.0,\n    \"5m\": 50.0,\n    \"15m\": 20.0"));
  CHECK(contains(meta, "\"load_average_after\": {\n    \"1m\": 100.0"));
  CHECK(contains(meta, "\"kpn_version\": \"9.8.7\""));
  CHECK(contains(meta, "\"kpn_version_source\": \"kpn-run --version\""));
  CHECK(contains(meta, "\"build_type\": null"));  // no CMakeCache.txt beside the fake
  CHECK(contains(meta, "\"cpu_model\": "));
  CHECK(contains(meta, "\"cpus_online\": "));
  CHECK(contains(meta, "\"kpn_commit\": "));
  CHECK(contains(meta, "\"flagged_rows\": 4"));
  CHECK(contains(meta, "\"status\": \"complete\""));

  // The figure as PNG and SVG; the SVG has the error bars (matplotlib draws them as a LineCollection).
  const std::string png = read_text(dir / "fake.png");
  CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  const std::string svg = read_text(dir / "fake.svg");
  CHECK(contains(svg, "<svg"));
  CHECK(contains(svg, "LineCollection"));
}

TEST_CASE("The experiment driver's thresholds are options, and an idle machine gets no warning",
          "[tools][experiment]") {
  KPN_SKIP_IF(kpn::test::python_cannot_run_driver());
  const auto out_dir = scratch_file("experiment-checks");
  const auto sweep =
      write_scratch("fake-lines.yaml", sweep_text("fake-lines", "{ kind: lines, x: network, y: [speedup] }"));
  // A spread of 100 % is within --max-spread 150; the impossible speedup is still flagged.
  const Driver run = run_driver(sweep, out_dir, "0.00 0.00 0.00 1/100 1", "--max-spread 150");
  INFO("stdout:\n" << run.out << "\nstderr:\n" << run.err);
  REQUIRE(run.status == 0);
  CHECK(contains(run.err, "network=impossible ws-last on 2 CPUs [speedup>cpus]"));
  CHECK_FALSE(contains(run.err, "WARNING: fake-lines: network=noisy"));
  CHECK_FALSE(contains(run.err, "not idle"));
  CHECK(contains(run.err, "experiment: WARNING: fake-lines: 2 of 10 rows flagged"));

  std::string header;
  const auto flags = flags_by_row(out_dir / "fake-lines" / "results.csv", header);
  REQUIRE(flags.size() == 10);
  CHECK(flags.at("impossible 2") == "speedup>cpus");
  CHECK(flags.at("noisy 1").empty());
  CHECK(flags.at("noisy 2").empty());
  CHECK(contains(read_text(out_dir / "fake-lines" / "meta.json"), "\"max_spread\": 1.5"));
  // Lines get min-max error bars too.
  CHECK(contains(read_text(out_dir / "fake-lines" / "fake-lines.svg"), "LineCollection"));
}

TEST_CASE("The experiment driver runs a busy process pinned to the sweep's hog CPU beside every run, and stops it",
          "[tools][experiment]") {
  KPN_SKIP_IF(kpn::test::python_cannot_run_driver());
  const std::string base =
      "title: \"Fake runs beside a hog\"\n"
      "network:\n"
      "  - { name: one, file: configs/pipeline.yaml, set: { wall_1: 1.0, wall_n: 0.55, jitter: 0 } }\n"
      "  - { name: two, file: configs/pipeline.yaml, set: { wall_1: 1.0, wall_n: 0.6, jitter: 0 } }\n"
      "schedulers: [ws-last]\n"
      "cpus: [1, N]\n"
      "figure: { kind: bars, x: network, y: [speedup] }\n";
  const auto out_dir = scratch_file("experiment-hog");
  const Driver run = run_driver(write_scratch("hog.yaml", "name: hog\nhog: { cpu: 0 }\n" + base), out_dir, "0.00 0.00 0.00 1/100 1", "");
  INFO("stdout:\n" << run.out << "\nstderr:\n" << run.err);
  REQUIRE(run.status == 0);
  // Each of the 12 runs (2 networks, 1 and 2 CPUs, 3 times) saw the hog, pinned to CPU 0.
  const auto runs = split(read_text(out_dir / "hog" / "runs.jsonl"), '\n');
  REQUIRE(runs.size() == 12);
  for (const auto& line : runs) CHECK(contains(line, R"("scheduler_stats": {"hog_seen": 1, "hog_cpus": 0})"));
  CHECK(contains(read_text(out_dir / "hog" / "meta.json"), R"("hog_cpu": 0)"));
  // None is left behind.
  CHECK(std::system("pgrep -f 'kpn-experiment-[h]og' >/dev/null") != 0);  // [h]: not this shell itself

  const Driver bad =
      run_driver(write_scratch("bad-hog.yaml", "name: bad-hog\nhog: { cpu: -1 }\n" + base), scratch_file("experiment-bad-hog"),
                 "0.00 0.00 0.00 1/100 1", "");
  CHECK(bad.status != 0);
  CHECK(contains(bad.err, "'hog' must be {cpu: C} with C a CPU number"));
}
