#include <catch2/catch.hpp>

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
}  // namespace

TEST_CASE("the fiber annotations follow the compiler's own sanitizer flags", "[runtime]") {
  const std::string sanitizer = KPN_SANITIZER;  // what the build was configured with, "" for none
  CHECK(kAsanAnnotations == (sanitizer == "address"));
  CHECK(kTsanAnnotations == (sanitizer == "thread"));
}
