#pragma once
// What the tests of tools/experiment.py share: the Python they run it with, whether that Python can run it,
// skipping a test case that cannot run here, and splitting the CSV lines the driver writes.

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace kpn::test {

// The system Python, which scripts/setup.sh gives matplotlib and yaml (Debian's python3-matplotlib and
// python3-yaml), whatever python3 comes first on the PATH.
inline constexpr const char* kPython = "/usr/bin/python3";

// Why kPython cannot run the driver (it lacks matplotlib or yaml), or empty.
inline std::string python_cannot_run_driver() {
  const std::string probe = std::string(kPython) + " -c 'import matplotlib, yaml' >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) {
    return std::string(kPython) + " lacks matplotlib or yaml (bash scripts/setup.sh installs them)";
  }
  return "";
}

// `text` cut at every `separator` (no quoting: the driver writes no quoted cells for these sweeps).
inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, separator);) out.push_back(item);
  return out;
}

}  // namespace kpn::test

// Ends the current test case as a success with a warning that says why, if `reason` (a std::string) is not
// empty: a test that cannot run here is reported, not failed.
#define KPN_SKIP_IF(reason)                                  \
  if (const std::string kpn_skip_why = (reason); !kpn_skip_why.empty()) { \
    WARN("skipped: " << kpn_skip_why);                       \
    SUCCEED("skipped");                                      \
    return;                                                  \
  }
