#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>

#include <kpn.hpp>

#include "runtime/tracked.hpp"
#include "runtime/undrained_pipe.hpp"
#include "support.hpp"

// Cancelling one process, a group, from inside the network and from the host (runtime/cancel.hpp).

using namespace std::chrono_literals;
using Catch::Matchers::Contains;

namespace {

const kpn::ProcessReport* find_process(const kpn::RunReport& r, const std::string& name) {
  auto it = std::find_if(r.process_details.begin(), r.process_details.end(), [&](const auto& p) { return p.name == name; });
  return it == r.process_details.end() ? nullptr : &*it;
}

// Yields until `flag` is set: the other process has reached the point the test needs (no sleeping).
void wait_for(const std::atomic<bool>& flag) {
  while (!flag.load()) kpn::yield();
}

struct WorkerGone {};

}  // namespace

TEST_CASE("a cancelled parked process unwinds, its destructors run and its reader sees the end of the stream",
          "[runtime][cancel]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    kpn::test::Census census;
    auto [in_tx, in_rx] = net.channel<int>(1, "in");
    auto [out_tx, out_rx] = net.channel<int>(1, "out");
    std::atomic<bool> started{false};
    long alive_at_end_of_stream = -1;
    bool end_of_stream = false;
    net.process("stuck", [&, in = std::move(in_rx), out = std::move(out_tx)]() mutable {
      kpn::test::Tracked on_stack(census);
      started = true;
      in.read();  // nobody writes: parked until cancelled
      out.write(1);
    });
    net.process("controller", [&, in = std::move(in_tx), out = std::move(out_rx)]() mutable {
      wait_for(started);
      CHECK(kpn::cancel("stuck") == 1);
      end_of_stream = !out.read().has_value();
      alive_at_end_of_stream = census.alive();
    });
    const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(end_of_stream);
    CHECK(alive_at_end_of_stream == 0);  // unwound on its own stack before its channels closed
    CHECK(r.processes_cancelled == 1);
    const auto* stuck = find_process(r, "stuck");
    REQUIRE(stuck != nullptr);
    CHECK(stuck->cancelled);
    CHECK_FALSE(find_process(r, "controller")->cancelled);
    CHECK_THAT(r.to_json(true), Contains("\"processes_cancelled\":1") && Contains("\"cancelled\":true"));
  }
}

TEST_CASE("a cancelled computing process stops at its next yield or channel operation", "[runtime][cancel]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    for (bool by_channel : {false, true}) {
      // A process that never yields keeps its worker: on one worker nobody else could run to cancel it.
      if (by_channel && cfg.cpus == 1) continue;
      CAPTURE(cfg.scheduler, cfg.cpus, by_channel);
      kpn::Network net;
      auto [tx, rx] = net.channel<int>(1, "never");
      std::atomic<bool> started{false};
      std::atomic<long> rounds{0};
      std::atomic<bool> unexpected{false};
      net.process("spinner", [&, rx = std::move(rx)]() mutable {
        started = true;
        for (;;) {
          rounds.fetch_add(1);
          if (by_channel) {
            // Never parks; Closed once the controller has gone (it may go before this process notices).
            if (rx.try_read().has_value()) unexpected = true;
          } else {
            kpn::yield();
          }
        }
      });
      net.process("controller", [&, tx = std::move(tx)]() mutable {
        wait_for(started);
        kpn::cancel("spinner");
      });
      const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      CHECK(r.processes_cancelled == 1);
      CHECK(rounds.load() >= 1);
      CHECK_FALSE(unexpected.load());
    }
  }
}

TEST_CASE("cancelling a group unwinds its processes and their spawned helpers while the rest goes on",
          "[runtime][cancel]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::atomic<int> started{0};
    std::vector<kpn::Writer<int>> feeds;
    for (int i = 0; i < 3; ++i) {
      auto [tx, rx] = net.channel<int>(1, "feed-" + std::to_string(i));
      auto [htx, hrx] = net.channel<int>(1, "helper-feed-" + std::to_string(i));
      feeds.push_back(std::move(tx));
      feeds.push_back(std::move(htx));
      net.process("member-" + std::to_string(i),
                  [&, rx = std::move(rx), hrx = std::move(hrx)]() mutable {
                    // The helper joins its spawner's group.
                    kpn::spawn("helper", [&, hrx = std::move(hrx)]() mutable {
                      started.fetch_add(1);
                      hrx.read();
                    });
                    started.fetch_add(1);
                    rx.read();
                  },
                  kpn::ProcessOptions{.group = "workers"});
    }
    auto [a_tx, a_rx] = net.channel<int>(1, "bystander-channel");
    long sum = 0;
    net.process("bystander-producer", [tx = std::move(a_tx)]() mutable {
      for (int i = 1; i <= 100; ++i) tx.write(i);
    });
    net.process("bystander-consumer", [&, rx = std::move(a_rx)]() mutable {
      while (auto v = rx.read()) sum += *v;
    });
    std::size_t cancelled = 0;
    net.process("controller", [&, feeds = std::move(feeds)]() mutable {
      while (started.load() < 6) kpn::yield();
      cancelled = kpn::cancel_group("workers");
    });
    const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(cancelled == 6);
    CHECK(r.processes_cancelled == 6);
    CHECK(sum == 5050);
    CHECK_FALSE(find_process(r, "bystander-consumer")->cancelled);
  }
}

TEST_CASE("a host thread cancels a process while the network runs", "[runtime][cancel]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    kpn::test::Census census;
    auto [tx, rx] = net.channel<int>(1, "never");
    std::atomic<bool> started{false};
    std::promise<void> host_done;
    std::shared_future<void> done = host_done.get_future().share();
    net.process("stuck", [&, rx = std::move(rx)]() mutable {
      kpn::test::Tracked on_stack(census);
      started = true;
      rx.read();
    });
    // Keeps the run from being quiescent (a blocking call counts as active) until the host is done.
    net.process("holder", [&, tx = std::move(tx)]() mutable { kpn::blocking([&] { done.wait(); }); });
    kpn::Runtime rt({.cpus = cfg.cpus, .scheduler = cfg.scheduler});
    std::size_t cancelled = 0;
    std::thread host([&] {
      while (!started.load()) std::this_thread::yield();
      cancelled = rt.cancel("stuck");
      host_done.set_value();
    });
    const kpn::RunReport r = rt.run(net);
    host.join();
    CHECK(cancelled == 1);
    CHECK(r.processes_cancelled == 1);
    CHECK(census.alive() == 0);
  }
}

TEST_CASE("a host thread cancels a sleeping process by its group", "[runtime][cancel]") {
  kpn::Network net;
  std::atomic<bool> started{false};
  net.process("sleeper", [&] {
    started = true;
    kpn::sleep_for(1h);
  }, kpn::ProcessOptions{.group = "timers"});
  kpn::Runtime rt({.cpus = 2});
  std::thread host([&] {
    while (!started.load()) std::this_thread::yield();
    rt.cancel_group("timers");
  });
  const auto t0 = std::chrono::steady_clock::now();
  const kpn::RunReport r = rt.run(net);
  host.join();
  CHECK(r.processes_cancelled == 1);
  CHECK(std::chrono::steady_clock::now() - t0 < 1min);
}

TEST_CASE("cancelling a process that waits in a select wakes it", "[runtime][cancel][select]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [a_tx, a_rx] = net.channel<int>(1, "a");
    auto [b_tx, b_rx] = net.channel<int>(1, "b");
    auto [done_tx, done_rx] = net.channel<int>(1, "done");
    std::atomic<bool> started{false};
    bool timed_select = false;
    net.process("selector", [&, a = std::move(a_rx), b = std::move(b_rx), done = std::move(done_tx)]() mutable {
      started = true;
      using namespace kpn::nondeterministic;
      select({readable(a), readable(b)});
      timed_select = true;
      select_for({readable(a), readable(b)}, 1h);
    });
    net.process("controller", [&, a = std::move(a_tx), b = std::move(b_tx), done = std::move(done_rx)]() mutable {
      wait_for(started);
      kpn::cancel("selector");
      // a and b stay open (this process holds their writers) until the selector is gone: only the
      // cancellation can end its select.
      CHECK_FALSE(done.read().has_value());
    });
    const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(r.processes_cancelled == 1);
    CHECK_FALSE(timed_select);
  }
}

TEST_CASE("cancelling a process in a blocking call takes effect when the call returns", "[runtime][cancel]") {
  kpn::Network net;
  std::atomic<bool> in_call{false};
  std::atomic<bool> release{false};
  bool after_call = false;
  net.process("caller", [&] {
    kpn::blocking([&] {
      in_call = true;
      while (!release.load()) std::this_thread::yield();
    });
    after_call = true;  // not reached: the call returns into the unwinding
  });
  net.process("controller", [&] {
    wait_for(in_call);
    kpn::cancel("caller");
    release = true;
  });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2}).run(net);
  CHECK(r.processes_cancelled == 1);
  CHECK_FALSE(after_call);
}

namespace {

// A network of a writer stuck in an interruptible call (kpn::test::add_stuck_writer) and a process
// "bystander" in an interruptible call of its own, which waits for its token or `release`: `bystander_stopped` says
// whether the bystander's stop was requested (it must not be, by another process's cancellation).
struct StuckWriterBeside {
  kpn::test::Census census;
  kpn::test::UndrainedPipe pipe;
  kpn::Network net;
  std::atomic<bool> in_call{false};
  std::atomic<bool> gave_up{false};
  std::atomic<bool> bystander_in_call{false};
  std::atomic<bool> release{false};
  std::atomic<bool> bystander_stopped{false};

  StuckWriterBeside() {
    kpn::test::add_stuck_writer(net, census, pipe, in_call, gave_up);
    net.process("bystander", [this, probe = kpn::test::Tracked(census)] {
      kpn::blocking([this](std::stop_token stop) {
        bystander_in_call.store(true);
        while (!release.load() && !stop.stop_requested()) std::this_thread::sleep_for(1ms);
        bystander_stopped.store(stop.stop_requested());
      });
    });
  }
  // Whether both calls have begun.
  bool both_in_calls() const { return in_call.load() && bystander_in_call.load(); }
};

}  // namespace

TEST_CASE("cancelling a process stuck in an interruptible blocking call interrupts the call", "[runtime][cancel][blocking]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    StuckWriterBeside stuck;
    stuck.net.process("controller", [&] {
      while (!stuck.both_in_calls()) kpn::yield();
      kpn::sleep_for(5ms);  // most often inside write(2) by then; a stop before it is seen too
      CHECK(kpn::cancel("writer") == 1);
      stuck.release.store(true);
    });
    // Without the interruption the writer would wait for good; the drain turns that into a failed check.
    kpn::test::DrainAfter way_out(stuck.pipe, 30s);
    const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(stuck.net);
    CHECK(stuck.gave_up.load());
    CHECK(r.processes_cancelled == 1);
    CHECK_FALSE(stuck.bystander_stopped.load());
    CHECK(stuck.census.alive() == 0);
  }
}

TEST_CASE("a host thread cancels a process stuck in an interruptible blocking call", "[runtime][cancel][blocking]") {
  StuckWriterBeside stuck;
  kpn::Runtime rt({.cpus = 2});
  std::thread host([&] {
    while (!stuck.both_in_calls()) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(5ms);
    CHECK(rt.cancel("writer") == 1);
    stuck.release.store(true);
  });
  kpn::test::DrainAfter way_out(stuck.pipe, 30s);
  const kpn::RunReport r = rt.run(stuck.net);
  host.join();
  CHECK(stuck.gave_up.load());
  CHECK(r.processes_cancelled == 1);
  CHECK_FALSE(stuck.bystander_stopped.load());
  CHECK(stuck.census.alive() == 0);
}

TEST_CASE("an interruptible call still queued for the pool when its process is cancelled starts stopped",
          "[runtime][cancel][blocking]") {
  kpn::Network net;
  std::atomic<bool> first_in_call{false};
  std::atomic<bool> second_submitted{false};
  std::atomic<bool> release{false};
  std::atomic<bool> started_stopped{false};
  bool after_call = false;
  // The pool's only thread is busy with this call until the second process has been cancelled.
  net.process("first", [&] {
    kpn::blocking([&] {
      first_in_call = true;
      while (!release.load()) std::this_thread::sleep_for(1ms);
    });
  });
  // On one worker the controller runs only once "second" has switched out after raising its flag, which it
  // does in the call's park, after queueing the call.
  net.process("second", [&] {
    wait_for(first_in_call);
    second_submitted = true;
    kpn::blocking([&](std::stop_token stop) { started_stopped = stop.stop_requested(); });
    after_call = true;  // not reached: the call returns into the unwinding
  });
  net.process("controller", [&] {
    wait_for(second_submitted);
    kpn::cancel("second");
    release = true;
  });
  const kpn::RunReport r = kpn::Runtime({.cpus = 1, .blocking_threads = 1}).run(net);
  CHECK(r.processes_cancelled == 1);
  CHECK(started_stopped.load());
  CHECK_FALSE(after_call);
}

TEST_CASE("cancelling an unknown process is an error naming it", "[runtime][cancel]") {
  kpn::Network net;
  std::string by_name, by_group, by_id;
  std::size_t finished = 99;
  net.process("early", [] {});
  net.process("asker", [&] {
    try { kpn::cancel("nobody"); } catch (const std::invalid_argument& e) { by_name = e.what(); }
    try { kpn::cancel_group("no-group"); } catch (const std::invalid_argument& e) { by_group = e.what(); }
    try { kpn::cancel(kpn::ProcessId{1'000'000}); } catch (const std::invalid_argument& e) { by_id = e.what(); }
    while (kpn::cancel("early") != 0) kpn::yield();  // finished, not unknown: 0, no error
    finished = 0;
  });
  kpn::Runtime rt({.cpus = 2});
  rt.run(net);
  CHECK_THAT(by_name, Contains("kpn::cancel") && Contains("'nobody'"));
  CHECK_THAT(by_group, Contains("'no-group'"));
  CHECK_THAT(by_id, Contains("1000000"));
  CHECK(finished == 0);
  CHECK_THROWS_AS(rt.cancel("asker"), std::logic_error);  // no network is running
  CHECK_THROWS_AS(kpn::cancel("asker"), std::logic_error);  // not from a process
}

TEST_CASE("the neighbours of a cancelled process see the end of the stream and a broken channel", "[runtime][cancel]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [up_tx, up_rx] = net.channel<int>(2, "up");
    auto [down_tx, down_rx] = net.channel<int>(2, "down");
    bool broken = false;
    bool end_of_stream = false;
    net.process("upstream", [&, tx = std::move(up_tx)]() mutable {
      for (int i = 0; i < 5; ++i) tx.write(i);
      kpn::cancel("middle");
      try {
        for (int i = 5;; ++i) tx.write(i);
      } catch (const kpn::BrokenChannel&) {
        broken = true;
      }
    });
    net.process("middle", [in = std::move(up_rx), out = std::move(down_tx)]() mutable {
      while (auto v = in.read()) out.write(*v);
    });
    net.process("downstream", [&, rx = std::move(down_rx)]() mutable {
      while (rx.read()) {
      }
      end_of_stream = true;
    });
    const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(broken);
    CHECK(end_of_stream);
    CHECK(r.processes_cancelled == 1);
  }
}

TEST_CASE("a consumer cancelled mid-stream loses no message it had read", "[runtime][cancel]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    constexpr std::size_t kCapacity = 4;
    auto [tx, rx] = net.channel<int>(kCapacity, "stream");
    auto [progress_tx, progress_rx] = net.channel<int>(1, "progress");
    std::vector<int> consumed;  // written by the consumer only
    long written = 0;           // written by the producer only
    net.process("producer", [&, tx = std::move(tx)]() mutable {
      try {
        for (int i = 0;; ++i) {
          tx.write(i);
          ++written;
          // Producer and consumer could hand the one worker to each other forever under some policies;
          // a yield now and then lets the canceller run.
          if (i % 64 == 63) kpn::yield();
        }
      } catch (const kpn::BrokenChannel&) {
      }
    });
    net.process("consumer", [&, rx = std::move(rx), progress = std::move(progress_tx)]() mutable {
      while (auto v = rx.read()) {
        consumed.push_back(*v);
        if (consumed.size() == 200) progress.write(0);  // then goes on reading: cancelled wherever it is
      }
    });
    net.process("canceller", [&, progress = std::move(progress_rx)]() mutable {
      progress.read();
      kpn::cancel("consumer");
    });
    const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(r.processes_cancelled == 1);
    REQUIRE(consumed.size() >= 200);
    // Every message read is there, in order, none skipped; what was written but not read was still in
    // the channel when the consumer went (at most its capacity).
    bool in_order = true;
    for (std::size_t i = 0; i < consumed.size(); ++i) in_order = in_order && consumed[i] == static_cast<int>(i);
    CHECK(in_order);
    CHECK(written >= static_cast<long>(consumed.size()));
    CHECK(written - static_cast<long>(consumed.size()) <= static_cast<long>(kCapacity));
  }
}

TEST_CASE("a process that cancels its own group unwinds when the call returns", "[runtime][cancel]") {
  kpn::Network net;
  bool after = false;
  net.process("self", [&] {
    kpn::cancel_group("me");
    after = true;
  }, kpn::ProcessOptions{.group = "me"});
  const kpn::RunReport r = kpn::Runtime({.cpus = 1}).run(net);
  CHECK_FALSE(after);
  CHECK(r.processes_cancelled == 1);
}

TEST_CASE("a process cancelled before it first runs never starts its body", "[runtime][cancel]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    if (!kpn::test::in_declared_order(cfg)) continue;  // "first" must run before "late" starts
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    kpn::test::Census census;
    bool started = false;
    net.process("first", [] { kpn::cancel("late"); });
    net.process("late", [&, probe = kpn::test::Tracked(census)] { started = true; });
    const kpn::RunReport r = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK_FALSE(started);
    CHECK(r.processes_cancelled == 1);
    CHECK(census.alive() == 0);  // its captures were destroyed all the same
  }
}

// A lost wake-up in the cancel protocol (runtime/wait_record.hpp) leaves a cancelled process parked: here
// the workers wait on channels whose other ends only the driver holds, and the driver, once the cancel is
// issued, neither writes nor closes them until every worker's output has ended; so a worker the cancel
// failed to wake is never woken, and the run ends in a reported deadlock (or a hang, failed by the test's
// timeout). The cancel comes from the driver after some rounds, or from the host after a short delay,
// while the workers park and wake all the time; many rounds under every policy and worker count.
TEST_CASE("cancelling processes that park and wake all the time never loses a wake-up", "[runtime][cancel][stress]") {
  constexpr int kWorkers = 6;
  const int rounds = kpn::test::kSanitized ? 2 : 6;
  for (const auto& cfg : kpn::test::all_configs()) {
    for (int round = 0; round < rounds; ++round) {
      const bool from_host = round % 2 == 1;
      CAPTURE(cfg.scheduler, cfg.cpus, round);
      kpn::Network net;
      kpn::test::Census census;
      std::vector<kpn::Writer<int>> inputs;
      std::vector<kpn::Reader<int>> outputs;
      for (int i = 0; i < kWorkers; ++i) {
        auto [in_tx, in_rx] = net.channel<int>(1, "in" + std::to_string(i));
        auto [out_tx, out_rx] = net.channel<int>(1, "out" + std::to_string(i));
        inputs.push_back(std::move(in_tx));
        outputs.push_back(std::move(out_rx));
        net.process("w" + std::to_string(i), [&, rx = std::move(in_rx), tx = std::move(out_tx)]() mutable {
          kpn::test::Tracked on_stack(census);
          while (auto v = rx.read()) tx.write(*v + 1);
        }, kpn::ProcessOptions{.group = "workers"});
      }
      std::atomic<bool> started{false};
      std::size_t cancelled_by_driver = 0;
      net.process("driver", [&, ins = std::move(inputs), outs = std::move(outputs)]() mutable {
        started = true;
        try {
          for (int n = 0;; ++n) {
            if (!from_host && n == 20 + 40 * round) {
              cancelled_by_driver = kpn::cancel_group("workers");
              break;
            }
            for (auto& in : ins) in.write(n);
            for (auto& out : outs) {
              if (!out.read()) throw WorkerGone{};
            }
          }
        } catch (const kpn::BrokenChannel&) {  // writing to a worker that unwound
        } catch (const WorkerGone&) {           // its output ended
        }
        // Keeps every input open (no write, no close) until every worker has gone.
        for (auto& out : outs) {
          while (out.read()) {
          }
        }
      });
      kpn::Runtime rt({.cpus = cfg.cpus, .scheduler = cfg.scheduler});
      std::thread host;
      std::size_t cancelled_by_host = 0;
      if (from_host) {
        host = std::thread([&] {
          while (!started.load()) std::this_thread::yield();
          std::this_thread::sleep_for(std::chrono::microseconds(200 * round));
          cancelled_by_host = rt.cancel_group("workers");
        });
      }
      const kpn::RunReport r = rt.run(net);
      if (host.joinable()) host.join();
      CHECK(cancelled_by_driver + cancelled_by_host == kWorkers);
      CHECK(r.processes_cancelled == kWorkers);
      CHECK(census.alive() == 0);
    }
  }
}

TEST_CASE("cancelling processes that make interruptible blocking calls all the time ends every one of them",
          "[runtime][cancel][blocking][stress]") {
  // Each cancel lands somewhere in a caller's loop: before its call is queued, while it is queued (the pool
  // has fewer threads than callers), while it runs, or just after it returned; every caller must unwind,
  // none may be left waiting for a signal.
  constexpr int kCallers = 6;
  const int rounds = kpn::test::kSanitized ? 2 : 5;
  for (const unsigned cpus : {1u, 2u, 4u}) {
    for (int round = 0; round < rounds; ++round) {
      CAPTURE(cpus, round);
      kpn::Network net;
      kpn::test::Census census;
      std::atomic<int> calls{0};
      for (int i = 0; i < kCallers; ++i) {
        net.process("caller" + std::to_string(i), [&, probe = kpn::test::Tracked(census)] {
          for (;;) {
            kpn::blocking([&](std::stop_token stop) {
              calls.fetch_add(1);
              // A sleep that the interrupt signal ends early; without a signal, it ends by itself.
              if (!stop.stop_requested()) ::poll(nullptr, 0, 2);
            });
          }
        });
      }
      net.process("controller", [&] {
        for (int i = 0; i < kCallers; ++i) {
          while (calls.load() < (i + 1) * 3) kpn::yield();
          CHECK(kpn::cancel("caller" + std::to_string(i)) == 1);
        }
      });
      const kpn::RunReport r = kpn::Runtime({.cpus = cpus, .blocking_threads = 3}).run(net);
      CHECK(r.processes_cancelled == static_cast<std::uint64_t>(kCallers));
      CHECK(census.alive() == 0);
    }
  }
}
