// tools/experiment.py end to end: the four sweeps of the Nornir paper's evaluation (configs/experiments/) on their
// quick preset, one repetition, on 2 CPUs. Checks the files and that every value is sane; never timings.

#include <catch2/catch.hpp>

#include <cmath>
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

namespace {

// What each sweep's results.csv must hold: its parameter columns, then the driver's own columns, and one row
// per point, scheduler and CPU count (1 and 2) of the quick preset.
struct ExpectedSweep {
  std::string name;
  std::string param_columns;
  std::size_t rows;
};
const std::vector<ExpectedSweep> kSweeps = {
    {"1-division", "n,d,w_us,m", 6 * 2 * 2},               // n in {16, 64}, d in {1000, 10000, 100000}
    {"2-workers", "n,d,w_us,m", 3 * 2 * 2},                // n in {8, 32, 64}
    {"3-work-per-message", "n,d,T,w_us,m", 6 * 2 * 2},     // n in {16, 50}, T in {0.25, 1, 4}
    {"4-sawtooth", "n,d,T,w_us,m", 9 * 1 * 2},             // n from 2N = 4 to 6N = 12, ws-last only
};
const std::string kResultColumns =
    "scheduler,cpus,wall_median_s,wall_min_s,wall_max_s,speedup,steal_attempts_per_s,messages,"
    "context_switches,cross_worker_share,t0,repeat,flags";

// Why the test cannot run here, or empty.
std::string reason_to_skip() {
  // KPN_SANITIZER (tests/CMakeLists.txt) names the build's sanitizer, if any.
  if (const std::string sanitizer = KPN_SANITIZER; !sanitizer.empty()) {
    return "a sanitized build (" + sanitizer + ") runs real workloads too slowly";
  }
  return kpn::test::python_cannot_run_driver();
}

// The CSV's rows as column -> cell (the driver writes no quoted cells for these sweeps).
std::vector<std::map<std::string, std::string>> read_rows(const std::filesystem::path& csv, std::string& header) {
  std::vector<std::map<std::string, std::string>> rows;
  std::ifstream in(csv);
  std::getline(in, header);
  const auto columns = split(header, ',');
  for (std::string line; std::getline(in, line);) {
    auto cells = split(line, ',');
    cells.resize(columns.size());  // a trailing empty cell
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < columns.size(); ++i) row[columns[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

double number(const std::map<std::string, std::string>& row, const std::string& column) {
  const auto& cell = row.at(column);
  INFO(column << " = '" << cell << "'");
  REQUIRE(!cell.empty());
  return std::stod(cell);
}

}  // namespace

TEST_CASE("The experiment driver's quick preset writes a CSV and a PNG with sane values", "[tools][experiment]") {
  KPN_SKIP_IF(reason_to_skip());
  const auto out = scratch_file("experiments");
  const auto log = scratch_file("experiment.log");
  std::string command = std::string(kPython) + " '" + source_dir() + "/tools/experiment.py'";
  for (const auto& sweep : kSweeps) command += " '" + source_dir() + "/configs/experiments/" + sweep.name + ".yaml'";
  command += " --quick --repeat 1 --cpus 2 --out '" + out.string() + "' --bin '" + KPN_BIN_DIR + "' >'" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  INFO(command << "\n" << read_text(log));
  REQUIRE(status == 0);

  for (const auto& sweep : kSweeps) {
    INFO("sweep " << sweep.name);
    const auto dir = out / sweep.name;
    REQUIRE(std::filesystem::exists(dir / "results.csv"));
    std::string header;
    const auto rows = read_rows(dir / "results.csv", header);
    CHECK(header == sweep.param_columns + "," + kResultColumns);
    CHECK(rows.size() == sweep.rows);
    for (const auto& row : rows) {
      INFO("cpus=" << row.at("cpus") << " scheduler=" << row.at("scheduler") << " n=" << row.at("n"));
      const double wall = number(row, "wall_median_s");
      CHECK(std::isfinite(wall));
      CHECK(wall > 0);
      CHECK(number(row, "wall_min_s") <= wall);
      CHECK(wall <= number(row, "wall_max_s"));
      const double speedup = number(row, "speedup");
      CHECK(std::isfinite(speedup));
      CHECK(speedup > 0);
      const double steal_rate = number(row, "steal_attempts_per_s");
      CHECK(steal_rate >= 0);
      CHECK(number(row, "t0") > 0);
      CHECK(row.at("repeat") == "1");
      if (row.at("cpus") == "1") {
        CHECK(speedup == 1.0);
        CHECK(steal_rate == 0.0);
      } else {
        CHECK(row.at("cpus") == "2");
      }
    }
    const std::string png = read_text(dir / (sweep.name + ".png"));
    CHECK(png.size() > 8);
    CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    const std::string svg = read_text(dir / (sweep.name + ".svg"));
    CHECK(svg.find("<svg") != std::string::npos);
    const std::string meta = read_text(dir / "meta.json");
    CHECK(meta.find("\"t0\"") != std::string::npos);
    // What the runs ran on: the build type from build/CMakeCache.txt, a version (kpn-run --version or
    // CMakeLists.txt), the load before and after (Linux has /proc/loadavg).
    CHECK(meta.find("\"build_type\": \"") != std::string::npos);
    CHECK(meta.find("\"kpn_version\": \"") != std::string::npos);
    CHECK(meta.find("\"load_average_before\": {") != std::string::npos);
    CHECK(meta.find("\"load_average_after\": {") != std::string::npos);
  }
}
