// Scheduling policies are chosen by name: the registry knows the built-in work-stealing policies and says
// which names it knows when asked for one it does not.

#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <kpn.hpp>

namespace {

bool listed(const std::string& name) {
  const auto list = kpn::scheduler_list();
  return std::any_of(list.begin(), list.end(), [&](const kpn::SchedulerInfo& s) { return s.name == name; });
}

std::string invalid_argument_message(const std::string& name) {
  try {
    (void)kpn::make_scheduler(name);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no std::invalid_argument)";
}

}  // namespace

TEST_CASE("make_scheduler returns the policy with the requested name", "[schedulers]") {
  for (const char* name : {"ws-cur", "ws-last"}) {
    CAPTURE(name);
    const auto policy = kpn::make_scheduler(name);
    REQUIRE(policy != nullptr);
    REQUIRE(policy->name() == name);
  }
}

TEST_CASE("make_scheduler rejects an unknown name and lists the known ones", "[schedulers]") {
  REQUIRE_THROWS_AS(kpn::make_scheduler("no-such-policy"), std::invalid_argument);
  const std::string what = invalid_argument_message("no-such-policy");
  REQUIRE_THAT(what, Catch::Contains("no-such-policy"));
  for (const auto& s : kpn::scheduler_list()) REQUIRE_THAT(what, Catch::Contains(s.name));
  REQUIRE_THAT(what, Catch::Contains("ws-cur") && Catch::Contains("ws-last"));
}

TEST_CASE("scheduler_list contains both work-stealing policies sorted by name and described", "[schedulers]") {
  REQUIRE(listed("ws-cur"));
  REQUIRE(listed("ws-last"));
  const auto list = kpn::scheduler_list();
  REQUIRE(std::is_sorted(list.begin(), list.end(),
                         [](const kpn::SchedulerInfo& a, const kpn::SchedulerInfo& b) { return a.name < b.name; }));
  for (const auto& s : list) {
    CAPTURE(s.name);
    REQUIRE_FALSE(s.description.empty());
  }
}

TEST_CASE("a runtime takes its policy by name and refuses an unknown one", "[schedulers]") {
  for (const char* name : {"ws-cur", "ws-last"}) {
    CAPTURE(name);
    kpn::Runtime rt({.cpus = 1, .scheduler = name});
    REQUIRE(rt.scheduler_name() == name);
  }
  REQUIRE_THROWS_AS(kpn::Runtime({.cpus = 1, .scheduler = "no-such-policy"}), std::invalid_argument);
}
