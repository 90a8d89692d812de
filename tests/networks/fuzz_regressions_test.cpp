// Every input the fuzzer ever crashed on (tests/fuzz/regressions/, one file each, in the fuzzer's input
// format: a --set line, then a topology file) now loads cleanly: it is built (loaded, resolved, its
// processes made, not run), or it is refused with a TopologyError or the builder's invalid_argument. Under the suite's ASan and UBSan passes this also checks it does so without a report.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "fuzz/fuzz_input.hpp"

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

// The hand-written seeds (tests/fuzz/seeds/) are replayed too: they exercise the same input format.
TEST_CASE("every input the fuzzer crashed on now builds or is refused with a clean error", "[networks][fuzz]") {
  const std::filesystem::path root = std::filesystem::path(KPN_SOURCE_DIR) / "tests/fuzz";
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const auto folder = entry.path().parent_path().filename();
    if (folder != "regressions" && folder != "seeds") continue;
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    ++files;
    INFO("regression file " << entry.path().filename().string());
    const std::string input = read_file(entry.path());
    REQUIRE_NOTHROW(kpn::fuzz::load_and_resolve(input));
  }
  CHECK(files > 0);
}

TEST_CASE("the fuzzer's --set line is split as kpn-run splits --set values", "[networks][fuzz]") {
  const auto sets = kpn::fuzz::parse_set_line("a=1 =x b==2\tnovalue c=");
  REQUIRE(sets.size() == 3);
  CHECK(sets[0] == std::pair<std::string, std::string>{"a", "1"});
  CHECK(sets[1] == std::pair<std::string, std::string>{"b", "=2"});
  CHECK(sets[2] == std::pair<std::string, std::string>{"c", ""});
}
