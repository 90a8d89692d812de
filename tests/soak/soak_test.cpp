// The soak test's short version, in every CI pass (sanitizers included): a fixed range of random networks
// (DAGs, rings, feedback loops that need Parks' rule, early-stopping readers, dynamic spawns), each run
// under every registered policy on 1, 2 and 4 workers, must give exactly the sequential oracle's output:
// nothing lost, nothing duplicated, nothing reordered, no hang. `kpn-soak --minutes N` is the long run,
// with the long networks this test skips; `kpn-soak --seed S` replays a network this test names.

#include <catch2/catch.hpp>

#include <string_view>

#include "soak_check.hpp"
#include "soak_net.hpp"

namespace {

bool sanitized() { return !std::string_view(KPN_SANITIZER).empty(); }

// Sanitizers slow every switch ten to fifty times: fewer networks there, the same matrix of policies.
std::size_t networks() { return sanitized() ? 8 : 30; }

// The long networks (thousands of values) are the long run's: gp with 4 workers on this 2-CPU machine
// spins for CPU time and takes seconds on one of them, minutes under TSan.
constexpr std::size_t kMaxSourceValues = 400;

}  // namespace

TEST_CASE("random networks give the oracle's output under every policy on 1, 2 and 4 workers", "[soak]") {
  kpn::soak::Matrix matrix;
  if (sanitized()) matrix.timeout = std::chrono::milliseconds(300'000);
  const std::size_t policies = kpn::soak::registered_policies().size();
  REQUIRE(policies > 0);
  // A fixed range of seeds, so a CI failure replays exactly (kpn-soak --seed S).
  std::size_t checked = 0;
  for (kpn::soak::u64 seed = 1; checked < networks(); ++seed) {
    if (kpn::soak::generate(seed).source_values() > kMaxSourceValues) continue;
    ++checked;
    const auto r = kpn::soak::check_network(seed, matrix);
    INFO(r.report);
    CHECK(r.runs == matrix.workers.size() * policies);
    CHECK(r.hangs == 0);
    CHECK(r.lost == 0);
    CHECK(r.duplicated == 0);
    CHECK(r.failed_runs == 0);
  }
}
