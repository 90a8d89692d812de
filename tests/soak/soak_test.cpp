// The soak test's short version, in every CI pass (sanitizers included): a fixed range of random networks
// (DAGs, rings, feedback loops that need Parks' rule, early-stopping readers, dynamic spawns), each run
// under every registered policy on 1, 2 and 4 workers, must give exactly the sequential oracle's output:
// nothing lost, nothing duplicated, nothing reordered, no hang. `kpn-soak --minutes N` is the long run;
// `kpn-soak --seed S` replays a network this test names.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string_view>

#include "soak_check.hpp"

namespace {

// Sanitizers slow every switch ten to fifty times: fewer networks there, the same matrix of policies.
std::size_t networks() { return std::string_view(KPN_SANITIZER).empty() ? 100 : 20; }

}  // namespace

TEST_CASE("random networks give the oracle's output under every policy on 1, 2 and 4 workers", "[soak]") {
  kpn::soak::Matrix matrix;
  matrix.timeout = std::chrono::milliseconds(std::string_view(KPN_SANITIZER).empty() ? 30'000 : 120'000);
  REQUIRE_FALSE(kpn::soak::registered_policies().empty());
  // A fixed range of seeds, so a CI failure replays exactly (kpn-soak --seed S).
  constexpr kpn::soak::u64 kFirstSeed = 1;
  for (kpn::soak::u64 seed = kFirstSeed; seed < kFirstSeed + networks(); ++seed) {
    const auto r = kpn::soak::check_network(seed, matrix);
    INFO(r.report);
    CHECK(r.runs == matrix.workers.size() * kpn::soak::registered_policies().size());
    CHECK(r.hangs == 0);
    CHECK(r.lost == 0);
    CHECK(r.duplicated == 0);
    CHECK(r.failed_runs == 0);
  }
}
