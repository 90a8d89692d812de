// What a program linked against libkpn.so uses, beyond the plugin registry: the runtime's errors caught by
// type, timers, deadlines, spawning, and a policy written outside the library. libkpn exports only what
// KPN_EXPORT marks (runtime/export.hpp), and kpn-tests links the layers' objects, so this program is where
// a missing export (a link error) or a hidden typeinfo (an exception no longer caught by type) shows.

#include <catch2/catch.hpp>

#include <sched.h>

#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <utility>

#include <kpn.hpp>

#include "runtime/process.hpp"
#include "runtime/worker.hpp"

using namespace std::chrono_literals;

namespace {

// One locked FIFO queue for every worker: the smallest complete policy, written against the public
// interface only (runtime/scheduler.hpp).
class OneQueue final : public kpn::Scheduler {
 public:
  std::string_view name() const noexcept override { return "one-queue"; }
  void start(kpn::SchedulerContext&) override { queue_.clear(); }
  void on_spawn(kpn::Process& p, kpn::Worker*) override { push(p); }
  void on_unblock(kpn::Process& p, kpn::Worker*) override { push(p); }
  void on_yield(kpn::Process& p, kpn::Worker&) override { push(p); }
  kpn::Process* pick_next(kpn::Worker&) override {
    std::lock_guard lock(mutex_);
    if (queue_.empty()) return nullptr;
    kpn::Process* p = queue_.front();
    queue_.pop_front();
    ++picked_;
    return p;
  }
  void on_idle(kpn::Worker&) override { sched_yield(); }
  std::vector<std::pair<std::string, double>> stats() const override {
    return {{"picked", static_cast<double>(picked_)}};
  }

 private:
  void push(kpn::Process& p) {
    std::lock_guard lock(mutex_);
    queue_.push_back(&p);
  }
  std::mutex mutex_;  // guards queue_ and picked_
  std::deque<kpn::Process*> queue_;
  std::size_t picked_ = 0;
};

}  // namespace

TEST_CASE("a program linked against libkpn catches a failed process as kpn::ProcessFailed", "[public-api]") {
  kpn::Network net;
  net.process("thrower", [] { throw std::runtime_error("broken on purpose"); });
  bool caught = false;
  try {
    kpn::Runtime({.cpus = 2}).run(net);
  } catch (const kpn::ProcessFailed& e) {
    caught = true;
    CHECK(e.process() == "thrower");
    CHECK_THROWS_AS(std::rethrow_exception(e.cause()), std::runtime_error);
  }
  CHECK(caught);
}

TEST_CASE("a program linked against libkpn catches a true deadlock as kpn::DeadlockError", "[public-api]") {
  kpn::Network net;
  auto [a_tx, a_rx] = net.channel<int>(1, "a");
  auto [b_tx, b_rx] = net.channel<int>(1, "b");
  net.process("left", [rx = std::move(a_rx), tx = std::move(b_tx)]() mutable {
    if (auto v = rx.read()) tx.write(*v);
  });
  net.process("right", [rx = std::move(b_rx), tx = std::move(a_tx)]() mutable {
    if (auto v = rx.read()) tx.write(*v);
  });
  CHECK_THROWS_AS(kpn::Runtime({.cpus = 2}).run(net), kpn::DeadlockError);
}

TEST_CASE("a program linked against libkpn runs a blocking call on the run's pool", "[public-api]") {
  kpn::Network net;
  int result = 0;
  net.process("caller", [&result] { result = kpn::blocking([] { return 6 * 7; }); });
  const kpn::RunReport report = kpn::Runtime({.cpus = 1}).run(net);
  CHECK(result == 42);
  CHECK(report.blocking_calls == 1);
}

TEST_CASE("a program linked against libkpn makes an interruptible blocking call", "[public-api]") {
  kpn::Network net;
  bool could_stop = false;
  net.process("caller", [&could_stop] {
    could_stop = kpn::blocking([](std::stop_token stop) { return stop.stop_possible() && !stop.stop_requested(); });
  });
  const kpn::RunReport report = kpn::Runtime({.cpus = 1}).run(net);
  CHECK(could_stop);  // the run's stop, not yet requested
  CHECK(report.blocking_calls == 1);
}

TEST_CASE("a program linked against libkpn spawns, sleeps and reads with a deadline", "[public-api]") {
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(4, "late");
  int timeouts = 0;
  int received = 0;
  std::string spawned_name;
  net.process("slow-writer", [tx = std::move(tx)]() mutable {
    kpn::sleep_for(30ms);
    tx.write(7);
  });
  net.process("reader", [rx = std::move(rx), &timeouts, &received, &spawned_name]() mutable {
    kpn::spawn("child", [&spawned_name] { spawned_name = kpn::this_process::name(); });
    kpn::yield();
    for (;;) {
      auto r = rx.read_for(1ms);
      if (r) received = *r;
      else if (r.timed_out()) ++timeouts;
      else break;
    }
  });
  const kpn::RunReport report = kpn::Runtime({.cpus = 2}).run(net);
  CHECK(received == 7);
  CHECK(timeouts > 0);
  CHECK(spawned_name == "child");
  CHECK(report.processes == 3);
}

TEST_CASE("a policy written outside libkpn runs a network through kpn::Runtime", "[public-api]") {
  kpn::Network net;
  auto [tx, rx] = net.channel<long>(1, "numbers");
  long sum = 0;
  net.process("producer", [tx = std::move(tx)]() mutable {
    for (long i = 1; i <= 1000; ++i) tx.write(i);
  });
  net.process("consumer", [rx = std::move(rx), &sum]() mutable {
    while (auto v = rx.read()) sum += *v;
  });
  kpn::Runtime rt({.cpus = 2}, std::make_unique<OneQueue>());
  const kpn::RunReport report = rt.run(net);
  CHECK(sum == 1000L * 1001L / 2);
  CHECK(report.messages == 1000);
  CHECK(rt.scheduler_name() == "one-queue");
}

TEST_CASE("a program linked against libkpn lists and makes the built-in policies by name", "[public-api]") {
  const auto policies = kpn::scheduler_list();
  REQUIRE_FALSE(policies.empty());
  for (const auto& info : policies) {
    CAPTURE(info.name);
    CHECK(kpn::make_scheduler(info.name)->name() == info.name);
  }
}

TEST_CASE("a program linked against libkpn selects over channels and cancels processes", "[public-api]") {
  kpn::Network net;
  auto [a_tx, a_rx] = net.channel<int>(1, "a");
  auto [b_tx, b_rx] = net.channel<int>(1, "b");
  auto [stuck_tx, stuck_rx] = net.channel<int>(1, "never");
  std::size_t chosen = 99;
  std::optional<std::size_t> timed_out{0};
  std::size_t cancelled = 0;
  net.process("stuck", [rx = std::move(stuck_rx)]() mutable { rx.read(); }, kpn::ProcessOptions{.group = "g"});
  net.process("selector", [&, a = std::move(a_rx), b = std::move(b_rx), keep = std::move(a_tx),
                           never = std::move(stuck_tx)]() mutable {
    using namespace kpn::nondeterministic;
    chosen = select({readable(a), readable(b)});
    b.read();
    timed_out = select_for({readable(a)}, 1ms);
    cancelled = kpn::cancel_group("g");
  });
  net.process("writer", [b = std::move(b_tx)]() mutable { b.write(1); });
  kpn::Runtime rt({.cpus = 2});
  const kpn::RunReport report = rt.run(net);
  CHECK(chosen == 1);
  CHECK_FALSE(timed_out.has_value());
  CHECK(cancelled == 1);
  CHECK(report.processes_cancelled == 1);
  CHECK_THROWS_AS(rt.cancel("stuck"), std::logic_error);
}
