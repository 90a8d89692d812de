#pragma once
// Reading one of a policy's own counters (Scheduler::stats) from a run's report.

#include <string>

#include <catch2/catch.hpp>

#include <kpn.hpp>

namespace kpn::test {

// The value of the policy's statistic `name`; fails the test if the report has no such statistic.
inline double scheduler_stat(const RunReport& r, const std::string& name) {
  for (const auto& [k, v] : r.scheduler_stats) {
    if (k == name) return v;
  }
  FAIL("no statistic " << name);
  return 0;
}

}  // namespace kpn::test
