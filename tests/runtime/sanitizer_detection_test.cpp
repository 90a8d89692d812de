#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "runtime/sanitizers.hpp"

// The fiber annotations (runtime/asan.hpp, runtime/tsan.hpp) must be on whenever the sanitizer is, however
// the build asked for it: the sanitizer passes of CI use only -fsanitize=... flags, as a user's build would.

namespace {
#if defined(KPN_ASAN)
constexpr bool kAsanAnnotations = true;
#else
constexpr bool kAsanAnnotations = false;
#endif
#if defined(KPN_TSAN)
constexpr bool kTsanAnnotations = true;
#else
constexpr bool kTsanAnnotations = false;
#endif

// Whether the build was configured with `name` among its sanitizers (KPN_SANITIZER: "", one name, or a
// comma-separated list such as "address,undefined").
bool configured_with(const std::string& name) {
  std::istringstream list(KPN_SANITIZER);
  for (std::string item; std::getline(list, item, ',');) {
    if (item == name) return true;
  }
  return false;
}
}  // namespace

TEST_CASE("the fiber annotations follow the compiler's own sanitizer flags", "[runtime]") {
  CHECK(kAsanAnnotations == configured_with("address"));
  CHECK(kTsanAnnotations == configured_with("thread"));
}
