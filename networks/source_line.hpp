#pragma once
// Where a C++ declaration was made, taken at the call site as std::source_location::current() takes it.
// Not std::source_location itself: Debian 12's clang 14 (the fuzz build) lacks the builtin that
// libstdc++ 12's <source_location> needs, and the header then declares nothing. __builtin_FILE and
// __builtin_LINE are GCC's and clang's both, and as default arguments they name the caller's line (GCC 12
// has no __builtin_COLUMN: the line is all a C++ declaration's errors name).

namespace kpn {

struct SourceLine {
  const char* file = "";
  unsigned line = 0;

  static constexpr SourceLine current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) noexcept {
    return SourceLine{file, line};
  }
};

}  // namespace kpn
