#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <kpn.hpp>

#include "runtime/tracked.hpp"
#include "runtime/deadlocked_pair.hpp"
#include "runtime/undrained_pipe.hpp"
#include "support.hpp"

// kpn::blocking: the function runs on a pool thread while the calling process is parked and its worker runs
// others; results and exceptions come back to the process; a process in a call is neither deadlocked nor
// idle; a stopping network waits for calls in flight, and stops the interruptible ones. Bounds are behaviours, not timings: the suite runs on
// loaded machines and under sanitizers.

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Waits on the calling kernel thread (a pool thread, in a call) until `flag` is set or `limit` passes.
bool wait_for_flag(const std::atomic<bool>& flag, Clock::duration limit) {
  const auto until = Clock::now() + limit;
  while (!flag.load()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

// A process "failing" that throws once `in_call` is set: the network stops while a call is in flight.
void add_failing_once_in_call(kpn::Network& net, kpn::test::Census& census, const std::atomic<bool>& in_call) {
  net.process("failing", [flag = &in_call, probe = kpn::test::Tracked(census)] {
    while (!flag->load()) kpn::yield();
    throw std::runtime_error("boom");
  });
}

// Runs `net` on `rt`, interrupting it from another thread once `in_call` is set and `then` has passed; the
// run must end with kpn::Interrupted.
void run_interrupted_in_call(kpn::Runtime& rt, kpn::Network& net, const std::atomic<bool>& in_call,
                             Clock::duration then = Clock::duration::zero()) {
  std::thread stopper([&] {
    while (!in_call.load()) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(then);
    rt.interrupt();
  });
  CHECK_THROWS_AS(rt.run(net), kpn::Interrupted);
  stopper.join();
}

}  // namespace

TEST_CASE("four processes each in a 200 ms blocking call on one worker finish in well under 800 ms",
          "[runtime][blocking]") {
  for (const auto& s : kpn::scheduler_list()) {
    CAPTURE(s.name);
    kpn::Network net;
    std::atomic<int> calls_done{0};
    for (int i = 0; i < 4; ++i) {
      net.process("caller-" + std::to_string(i), [&calls_done] {
        kpn::blocking([] { std::this_thread::sleep_for(200ms); });
        calls_done.fetch_add(1);
      });
    }
    const auto t0 = Clock::now();
    const kpn::RunReport report = kpn::Runtime({.cpus = 1, .scheduler = s.name}).run(net);
    const auto took = Clock::now() - t0;
    CHECK(calls_done.load() == 4);
    CHECK(took >= 200ms);
    // One after another would take 800 ms; side by side about 200 ms. 600 leaves room for a loaded machine.
    CHECK(took < 600ms);
    CHECK(report.blocking_calls == 4);
    CHECK(report.blocking_threads == 4);
  }
}

TEST_CASE("a blocking call returns its function's result to the calling process", "[runtime][blocking]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    int value = 0;
    std::string text;
    std::unique_ptr<int> owned;
    int target = 5;
    int* referred = nullptr;
    bool void_ran = false;
    std::thread::id call_thread;
    std::thread::id process_thread_before;
    net.process("caller", [&] {
      process_thread_before = std::this_thread::get_id();
      value = kpn::blocking([] { return 42; });
      text = kpn::blocking([] { return std::string(100, 'x'); });
      owned = kpn::blocking([] { return std::make_unique<int>(7); });
      int& r = kpn::blocking([&target]() -> int& { return target; });
      referred = &r;
      kpn::blocking([&] {
        void_ran = true;
        call_thread = std::this_thread::get_id();
      });
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(value == 42);
    CHECK(text == std::string(100, 'x'));
    REQUIRE(owned != nullptr);
    CHECK(*owned == 7);
    CHECK(referred == &target);
    CHECK(void_ran);
    CHECK(call_thread != process_thread_before);  // a pool thread, not the worker
  }
}

TEST_CASE("an exception thrown in a blocking call is rethrown in the calling process", "[runtime][blocking]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::string caught;
    net.process("caller", [&] {
      try {
        kpn::blocking([]() -> int { throw std::runtime_error("disk on fire"); });
      } catch (const std::runtime_error& e) {
        caught = e.what();
      }
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(caught == "disk on fire");
  }
}

TEST_CASE("an exception a blocking call lets out of the process fails the run naming the process", "[runtime][blocking]") {
  kpn::test::Census census;
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(1);
  net.process("reader", [rx = std::move(rx), probe = kpn::test::Tracked(census)]() mutable {
    while (rx.read()) {
    }
  });
  net.process("caller", [tx = std::move(tx), probe = kpn::test::Tracked(census)]() mutable {
    tx.write(1);
    kpn::blocking([] { throw std::runtime_error("cannot open 'x'"); });
  });
  try {
    kpn::Runtime({.cpus = 2}).run(net);
    FAIL("the run did not fail");
  } catch (const kpn::ProcessFailed& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("caller") && Catch::Matchers::Contains("cannot open 'x'"));
  }
  CHECK(census.alive() == 0);
}

TEST_CASE("kpn::blocking outside a process calls the function on the calling thread", "[runtime][blocking]") {
  const auto here = std::this_thread::get_id();
  std::thread::id ran_on;
  const int v = kpn::blocking([&] {
    ran_on = std::this_thread::get_id();
    return 3;
  });
  CHECK(v == 3);
  CHECK(ran_on == here);
  CHECK_THROWS_AS(kpn::blocking([] { throw std::out_of_range("x"); }), std::out_of_range);
}

TEST_CASE("the worker runs other processes while a process waits in a blocking call", "[runtime][blocking]") {
  for (const auto& s : kpn::scheduler_list()) {
    CAPTURE(s.name);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(2);
    std::atomic<bool> work_done{false};
    bool saw_work = false;
    // The call returns only once the other processes have finished their work, which needs the only worker.
    net.process("caller", [&] { saw_work = kpn::blocking([&] { return wait_for_flag(work_done, 10s); }); });
    net.process("producer", [tx = std::move(tx)]() mutable {
      for (int i = 0; i < 100; ++i) tx.write(i);
    });
    net.process("consumer", [rx = std::move(rx), &work_done]() mutable {
      long sum = 0;
      while (auto v = rx.read()) sum += *v;
      work_done.store(sum == 99 * 100 / 2);
    });
    kpn::Runtime({.cpus = 1, .scheduler = s.name}).run(net);
    CHECK(saw_work);
  }
}

TEST_CASE("a process waiting for one in a blocking call is not deadlocked", "[runtime][blocking][deadlock]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(1);
    int got = 0;
    // While `caller` is in its call, `reader` is the only other process and it is blocked: were the caller
    // idle, the network would look quiescent and be called deadlocked.
    net.process("caller", [tx = std::move(tx)]() mutable {
      tx.write(kpn::blocking([] {
        std::this_thread::sleep_for(15ms);
        return 9;
      }));
    });
    net.process("reader", [rx = std::move(rx), &got]() mutable { got = rx.read().value_or(-1); });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(got == 9);
  }
}

TEST_CASE("a true deadlock beside a process in a blocking call is still reported", "[runtime][blocking][deadlock]") {
  for (const auto& s : kpn::scheduler_list()) {
    CAPTURE(s.name);
    kpn::test::Census census;
    kpn::Network net;
    kpn::test::add_deadlocked_pair(net, "a", "b");
    // Never quiescent while it waits: only the local scan can see the cycle, and it must skip the caller.
    net.process("caller", [probe = kpn::test::Tracked(census)] {
      kpn::blocking([] { std::this_thread::sleep_for(150ms); });
    });
    try {
      kpn::Runtime({.cpus = 2, .scheduler = s.name, .local_deadlock_scan_ms = 10}).run(net);
      FAIL("the deadlock was not reported");
    } catch (const kpn::DeadlockError& e) {
      CHECK(kpn::test::sorted_cycle(e) == std::vector<std::string>{"a", "b"});
      for (const auto& b : e.blocked()) CHECK(b.process != "caller");
    }
    CHECK(census.alive() == 0);
  }
}

TEST_CASE("an interrupt during a blocking call waits for the call, then unwinds its process", "[runtime][blocking]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::test::Census census;
    kpn::Network net;
    std::atomic<bool> in_call{false};
    std::atomic<bool> call_returned{false};
    std::atomic<bool> went_on{false};
    net.process("caller", [&, probe = kpn::test::Tracked(census)] {
      kpn::blocking([&] {
        in_call.store(true);
        std::this_thread::sleep_for(20ms);
        call_returned.store(true);
      });
      went_on.store(true);
    });
    kpn::Runtime rt({.cpus = cfg.cpus, .scheduler = cfg.scheduler});
    run_interrupted_in_call(rt, net, in_call);
    CHECK(call_returned.load());  // run() returned only after the call did
    CHECK_FALSE(went_on.load());  // the process was unwound, not resumed
    CHECK(census.alive() == 0);
  }
}

TEST_CASE("a failure elsewhere stops the run once the blocking calls in flight have returned", "[runtime][blocking]") {
  kpn::test::Census census;
  kpn::Network net;
  std::atomic<bool> in_call{false};
  std::atomic<bool> call_returned{false};
  net.process("caller", [&, probe = kpn::test::Tracked(census)] {
    kpn::blocking([&] {
      in_call.store(true);
      std::this_thread::sleep_for(50ms);
      call_returned.store(true);
    });
  });
  add_failing_once_in_call(net, census, in_call);
  CHECK_THROWS_AS(kpn::Runtime({.cpus = 2}).run(net), kpn::ProcessFailed);
  CHECK(call_returned.load());
  CHECK(census.alive() == 0);
}

TEST_CASE("many processes making many blocking calls on several workers all get their results",
          "[runtime][blocking]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    constexpr int kProcesses = 40;
    constexpr int kCalls = 10;
    std::atomic<long> sum{0};
    for (int p = 0; p < kProcesses; ++p) {
      net.process("caller-" + std::to_string(p), [&sum, p] {
        for (int i = 0; i < kCalls; ++i) sum.fetch_add(kpn::blocking([p, i] { return p * kCalls + i; }));
      });
    }
    const kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler, .blocking_threads = 8}).run(net);
    constexpr long kN = kProcesses * kCalls;
    CHECK(sum.load() == kN * (kN - 1) / 2);
    CHECK(report.blocking_calls == static_cast<std::uint64_t>(kN));
    CHECK(report.blocking_threads >= 1);
    CHECK(report.blocking_threads <= 8);
  }
}

TEST_CASE("with a pool of one thread, blocking calls run one after another", "[runtime][blocking]") {
  kpn::Network net;
  for (int i = 0; i < 3; ++i) {
    net.process("caller-" + std::to_string(i), [] { kpn::blocking([] { std::this_thread::sleep_for(50ms); }); });
  }
  const auto t0 = Clock::now();
  const kpn::RunReport report = kpn::Runtime({.cpus = 2, .blocking_threads = 1}).run(net);
  CHECK(Clock::now() - t0 >= 150ms);
  CHECK(report.blocking_calls == 3);
  CHECK(report.blocking_threads == 1);
}

TEST_CASE("a run that makes no blocking call starts no pool thread", "[runtime][blocking]") {
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(1);
  net.process("p", [tx = std::move(tx)]() mutable { tx.write(1); });
  net.process("c", [rx = std::move(rx)]() mutable { rx.read(); });
  const kpn::RunReport report = kpn::Runtime({.cpus = 2}).run(net);
  CHECK(report.blocking_calls == 0);
  CHECK(report.blocking_threads == 0);
  CHECK_THAT(report.to_json(), Catch::Matchers::Contains("\"blocking_calls\":0,\"blocking_threads\":0"));
  CHECK_THAT(report.summary(), !Catch::Matchers::Contains("blocking"));
}

TEST_CASE("the report counts blocking calls and pool threads in its summary and JSON", "[runtime][blocking]") {
  kpn::Network net;
  for (int i = 0; i < 2; ++i) {
    net.process("caller-" + std::to_string(i), [] {
      for (int k = 0; k < 3; ++k) kpn::blocking([] { std::this_thread::sleep_for(1ms); });
    });
  }
  const kpn::RunReport report = kpn::Runtime({.cpus = 1, .blocking_threads = 1}).run(net);
  CHECK(report.blocking_calls == 6);
  CHECK(report.blocking_threads == 1);
  CHECK_THAT(report.to_json(), Catch::Matchers::Contains("\"blocking_calls\":6,\"blocking_threads\":1"));
  CHECK_THAT(report.summary(), Catch::Matchers::Contains("blocking calls: 6 on 1 pool thread\n"));
}

TEST_CASE("the blocking pool's size must be between 1 and the limit", "[runtime][blocking]") {
  CHECK_THROWS_WITH(kpn::Runtime({.blocking_threads = 0}),
                    Catch::Matchers::Contains("blocking_threads = 0") && Catch::Matchers::Contains("expected 1 to"));
  CHECK_THROWS_AS(kpn::Runtime({.blocking_threads = kpn::config::kMaxBlockingThreads + 1}), std::invalid_argument);
  CHECK_NOTHROW(kpn::Runtime({.blocking_threads = 1}));
  CHECK_NOTHROW(kpn::Runtime({.blocking_threads = kpn::config::kMaxBlockingThreads}));
}

TEST_CASE("an interrupt while blocking calls wait for the pool's only thread ends once they have run", "[runtime][blocking]") {
  kpn::test::Census census;
  kpn::Network net;
  std::atomic<int> started{0};
  for (int i = 0; i < 3; ++i) {
    net.process("caller-" + std::to_string(i), [&, probe = kpn::test::Tracked(census)] {
      kpn::blocking([&] {
        started.fetch_add(1);
        std::this_thread::sleep_for(20ms);
      });
    });
  }
  kpn::Runtime rt({.cpus = 1, .blocking_threads = 1});
  std::thread stopper([&] {
    while (started.load() == 0) std::this_thread::sleep_for(1ms);
    rt.interrupt();
  });
  CHECK_THROWS_AS(rt.run(net), kpn::Interrupted);
  stopper.join();
  CHECK(census.alive() == 0);
}

using kpn::test::add_stuck_writer;
using kpn::test::UndrainedPipe;

TEST_CASE("an interrupt ends an interruptible blocking call stuck in a write nobody drains", "[runtime][blocking]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::test::Census census;
    UndrainedPipe pipe;
    kpn::Network net;
    std::atomic<bool> in_call{false};
    std::atomic<bool> gave_up{false};
    add_stuck_writer(net, census, pipe, in_call, gave_up);
    kpn::Runtime rt({.cpus = cfg.cpus, .scheduler = cfg.scheduler});
    // 5 ms: most often inside write(2) by then; a stop before it is seen too.
    run_interrupted_in_call(rt, net, in_call, 5ms);
    CHECK(gave_up.load());
    CHECK(census.alive() == 0);
  }
}

TEST_CASE("an interruptible call is interrupted even where the program blocks SIGURG", "[runtime][blocking]") {
  // The run's threads, the pool's among them, inherit the mask of the thread that calls run().
  sigset_t urg, saved;
  sigemptyset(&urg);
  sigaddset(&urg, SIGURG);
  REQUIRE(pthread_sigmask(SIG_BLOCK, &urg, &saved) == 0);
  kpn::test::Census census;
  UndrainedPipe pipe;
  kpn::Network net;
  std::atomic<bool> in_call{false};
  std::atomic<bool> gave_up{false};
  add_stuck_writer(net, census, pipe, in_call, gave_up);
  kpn::Runtime rt({.cpus = 2});
  run_interrupted_in_call(rt, net, in_call, 5ms);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  CHECK(gave_up.load());
  CHECK(census.alive() == 0);
}

TEST_CASE("a stop callback of an interruptible blocking call runs when another process fails", "[runtime][blocking]") {
  kpn::test::Census census;
  kpn::Network net;
  std::atomic<bool> in_call{false};
  std::atomic<bool> called_back{false};
  net.process("waiter", [&, probe = kpn::test::Tracked(census)] {
    kpn::blocking([&](std::stop_token stop) {
      // A wait that no signal ends (a condition variable retries): the callback is what wakes it.
      std::mutex m;
      std::condition_variable cv;
      bool woken = false;
      std::stop_callback wake(stop, [&] {
        called_back.store(true);
        std::lock_guard g(m);
        woken = true;
        cv.notify_all();
      });
      in_call.store(true);
      std::unique_lock g(m);
      cv.wait(g, [&] { return woken; });
    });
  });
  add_failing_once_in_call(net, census, in_call);
  try {
    kpn::Runtime({.cpus = 2}).run(net);
    FAIL("the failure was not reported");
  } catch (const kpn::ProcessFailed& e) {
    CHECK(e.process() == "failing");
  }
  CHECK(called_back.load());
  CHECK(census.alive() == 0);
}

TEST_CASE("a blocking call whose function takes no stop token is not interrupted when the network stops",
          "[runtime][blocking]") {
  kpn::test::Census census;
  kpn::Network net;
  std::atomic<bool> in_call{false};
  std::atomic<int> poll_result{-2};
  net.process("sleeper", [&, probe = kpn::test::Tracked(census)] {
    kpn::blocking([&] {
      in_call.store(true);
      // poll(2) with no descriptors is a sleep that a signal ends early with EINTR (-1); 0 is its timeout.
      poll_result.store(::poll(nullptr, 0, 100));
    });
  });
  kpn::Runtime rt({.cpus = 1});
  run_interrupted_in_call(rt, net, in_call);
  CHECK(poll_result.load() == 0);
  CHECK(census.alive() == 0);
}

TEST_CASE("a program's own SIGURG action is left alone: an interruptible call then sees its stop by its token",
          "[runtime][blocking]") {
  static std::atomic<int> program_handler_calls{0};
  struct sigaction own {}, saved{};
  own.sa_handler = [](int) { program_handler_calls.fetch_add(1); };
  sigemptyset(&own.sa_mask);
  own.sa_flags = SA_RESTART;
  REQUIRE(::sigaction(SIGURG, &own, &saved) == 0);
  kpn::test::Census census;
  kpn::Network net;
  std::atomic<bool> in_call{false};
  std::atomic<bool> saw_stop{false};
  net.process("waiter", [&, probe = kpn::test::Tracked(census)] {
    kpn::blocking([&](std::stop_token stop) {
      in_call.store(true);
      while (!stop.stop_requested()) std::this_thread::sleep_for(1ms);
      saw_stop.store(true);
    });
  });
  kpn::Runtime rt({.cpus = 2});
  run_interrupted_in_call(rt, net, in_call);
  ::sigaction(SIGURG, &saved, nullptr);
  CHECK(saw_stop.load());
  CHECK(program_handler_calls.load() == 0);
  CHECK(census.alive() == 0);
}

TEST_CASE("outside a process an interruptible blocking call gets a token that never stops", "[runtime][blocking]") {
  const bool possible = kpn::blocking([](std::stop_token stop) { return stop.stop_possible(); });
  CHECK_FALSE(possible);
}
