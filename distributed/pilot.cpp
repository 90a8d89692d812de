#include "distributed/pilot.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string_view>
#include <thread>

#include "networks/builder.hpp"
#include "networks/kinds.hpp"
#include "runtime/errors.hpp"

namespace kpn::distributed {

Profile run_pilot(const ResolvedNetwork& net, unsigned ms, const RuntimeOptions& options, const std::function<void(Runtime*)>& on_runtime) {
  ResultSink discard([](std::string_view) {});
  Network network = build_network(net, discard);
  Runtime runtime(options);
  // The timer interrupts the run after `ms` unless the run ended first. It is joined before the runtime
  // goes away; an interrupt that lands after run() returned only marks this runtime, which is dropped.
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread timer([&] {
    std::unique_lock lock(m);
    if (!cv.wait_for(lock, std::chrono::milliseconds(ms), [&] { return done; })) runtime.interrupt();
  });
  struct Stop {
    std::mutex& m;
    std::condition_variable& cv;
    bool& done;
    std::thread& timer;
    const std::function<void(Runtime*)>& on_runtime;
    ~Stop() {
      {
        std::lock_guard lock(m);
        done = true;
      }
      cv.notify_all();
      timer.join();
      if (on_runtime) on_runtime(nullptr);
    }
  } stop{m, cv, done, timer, on_runtime};
  if (on_runtime) on_runtime(&runtime);
  RunReport report;
  std::string ended;
  try {
    report = runtime.run(network);
    ended = "ended";
  } catch (const Interrupted& e) {
    if (e.report()) report = *e.report();
    ended = "cut";
  } catch (const RunError& e) {
    if (e.report()) report = *e.report();
    ended = e.what();
  }
  Profile p = profile_of(net, report);
  p.ms = ms;
  p.ended = std::move(ended);
  return p;
}

}  // namespace kpn::distributed
