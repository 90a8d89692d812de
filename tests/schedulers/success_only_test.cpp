#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include <kpn.hpp>

#include "schedulers/scheduler_stat.hpp"
#include "spin_for.hpp"

// The success-only policy's own promises: thieves register requests and victims push work to them, so no
// steal attempt fails; work reaches idle workers, also after they slept; idle workers sleep. (Every other test
// runs it too, as one of all_configs(): the Kahn determinism tests, the Zorro menu.)

using kpn::test::scheduler_stat;
using kpn::test::spin_for;

namespace {

// A parent that scatters `children` processes from one worker (they all start in its queue), after waiting
// `pause` (kpn::sleep_for: both workers sleep meanwhile). Each child computes, then yields until a process has
// run on each worker (or 10 s passed): a yield is a scheduling point, where the victim serves requests, so
// however late the machine lets the second worker start, the run ends only after the work reached it.
struct Scatter {
  kpn::RunReport report;
  unsigned workers_seen;  // bit i: a child ran on worker i
};

Scatter scatter(std::chrono::milliseconds pause, int children) {
  auto seen = std::make_shared<std::atomic<unsigned>>(0);
  kpn::Network net;
  net.process("parent", [=] {
    if (pause.count() > 0) kpn::sleep_for(pause);
    for (int i = 0; i < children; ++i) {
      kpn::spawn("child" + std::to_string(i), [seen] {
        spin_for(std::chrono::microseconds(300));
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        for (;;) {
          seen->fetch_or(1u << kpn::this_process::worker());
          if (seen->load() == 3u || std::chrono::steady_clock::now() > deadline) break;
          kpn::yield();
        }
      });
    }
  });
  kpn::RunReport report = kpn::Runtime({.cpus = 2, .scheduler = "success-only"}).run(net);
  return {std::move(report), seen->load()};
}

}  // namespace

TEST_CASE("success-only: processes spawned on one worker reach the other through answered requests, with no failed "
          "steal attempt",
          "[schedulers][success-only]") {
  const auto [r, seen] = scatter(std::chrono::milliseconds(0), 64);
  // Only pushes move processes between workers: a child ran on the second worker only if a request was answered.
  CHECK(seen == 3u);
  CHECK(scheduler_stat(r, "steal_requests") >= 1);
  CHECK(scheduler_stat(r, "pushes") >= 1);
  CHECK(scheduler_stat(r, "pushed_processes") >= scheduler_stat(r, "pushes"));
  REQUIRE(r.workers.size() == 2);
  CHECK(r.workers[0].context_switches > 0);
  CHECK(r.workers[1].context_switches > 0);
  // No thief ever looked into a victim's queue under its lock, so none came back empty-handed.
  CHECK(r.steal_attempts == r.steals);
  CHECK(r.steal_attempts == 0);
}

TEST_CASE("success-only: work made runnable after every worker slept still reaches both workers",
          "[schedulers][success-only]") {
  const auto [r, seen] = scatter(std::chrono::milliseconds(30), 64);
  CHECK(seen == 3u);
  CHECK(scheduler_stat(r, "sleeps") >= 1);
  CHECK(scheduler_stat(r, "pushes") >= 1);
  CHECK(r.workers[1].context_switches > 0);
}

TEST_CASE("success-only: an idle worker sleeps instead of spinning while another computes", "[schedulers][success-only]") {
  kpn::Network net;
  net.process("busy", [] { spin_for(std::chrono::milliseconds(200)); });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "success-only"}).run(net);
  CHECK(scheduler_stat(r, "sleeps") >= 1);
  // Nothing was ever queued behind the busy process: at most the one look before it started.
  CHECK(scheduler_stat(r, "steal_requests") <= 1);
}
