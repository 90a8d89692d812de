#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/duplicate_name.hpp"

// The duplicate-name check of a network's processes (runtime/duplicate_name.hpp): sorted by integer keys cut
// from the names, it must still find exactly the names given twice, whatever the keys collide on.

namespace {

std::optional<std::string> duplicate_in(const std::vector<std::string>& names) {
  const std::vector<std::string_view> views(names.begin(), names.end());
  const auto twin = kpn::find_duplicate_name(views);
  return twin ? std::optional<std::string>(std::string(*twin)) : std::nullopt;
}

std::vector<std::string> generated(const std::string& before, const std::string& after, int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(before + std::to_string(i) + after);
  return names;
}

}  // namespace

TEST_CASE("distinct generated names sharing a prefix and a suffix have no duplicate", "[runtime][names]") {
  CHECK_FALSE(duplicate_in(generated("p", "", 10000)));
  CHECK_FALSE(duplicate_in(generated("stage[", "]", 10000)));
  CHECK_FALSE(duplicate_in(generated("network.worker.", ".filter", 10000)));
}

TEST_CASE("a name given twice among many generated ones is found", "[runtime][names]") {
  auto names = generated("network.worker.", ".filter", 5000);
  names.insert(names.begin() + 1234, "network.worker.4321.filter");
  CHECK(duplicate_in(names) == "network.worker.4321.filter");
}

TEST_CASE("names that differ only between their first and last eight bytes are told apart", "[runtime][names]") {
  // The keys see the first and last 8 bytes of what the common prefix and suffix leave; a name whose
  // difference lies between those is decided by comparing whole names.
  const std::string pad(20, 'x');
  std::vector<std::string> names{"a" + pad + "1" + pad + "b", "c" + pad + "2" + pad + "d", "a" + pad + "3" + pad + "b",
                                 "c" + pad + "4" + pad + "d"};
  CHECK_FALSE(duplicate_in(names));
  names.push_back("c" + pad + "2" + pad + "d");
  CHECK(duplicate_in(names) == "c" + pad + "2" + pad + "d");
}

TEST_CASE("names that are prefixes of each other, or differ by a NUL byte, are distinct", "[runtime][names]") {
  CHECK_FALSE(duplicate_in({"a", "aa", "aaa", ""}));
  CHECK_FALSE(duplicate_in({std::string("a\0", 2), "a", std::string("\0a", 2)}));
  CHECK(duplicate_in({"", "a", ""}) == "");
  CHECK_FALSE(duplicate_in({}));
  CHECK_FALSE(duplicate_in({"only"}));
}

TEST_CASE("the check agrees with a set on random names from a small alphabet", "[runtime][names]") {
  // Short names over three letters collide often, on the keys and as whole names.
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<std::string> names(1 + rng() % 12);
    for (auto& name : names) {
      const std::size_t length = rng() % 11;
      for (std::size_t i = 0; i < length; ++i) name.push_back("ab\0"[rng() % 3]);
      if (rng() % 2 == 0) name = "common." + name + ".tail";
    }
    std::set<std::string> seen;
    std::set<std::string> twice;
    for (const auto& name : names) {
      if (!seen.insert(name).second) twice.insert(name);
    }
    const auto found = duplicate_in(names);
    CAPTURE(trial);
    if (twice.empty()) {
      CHECK_FALSE(found);
    } else {
      REQUIRE(found);
      CHECK(twice.count(*found) == 1);
    }
  }
}
