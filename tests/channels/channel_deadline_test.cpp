#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

// Channel operations with deadlines: try_read / try_write never park; read_for / write_for report a timeout
// distinctly from the end of the stream, and a timed wait is readied exactly once, by the message or by
// the timer.

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST_CASE("read_for times out when nothing arrives before the deadline", "[channels][timers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(1);
    kpn::ReadStatus first = kpn::ReadStatus::Ok;
    Clock::duration waited{};
    int later = 0;
    net.process("writer", [tx = std::move(tx)]() mutable {
      kpn::sleep_for(100ms);
      tx.write(7);
    });
    net.process("reader", [rx = std::move(rx), &first, &waited, &later]() mutable {
      const auto t0 = Clock::now();
      first = rx.read_for(20ms).status();
      waited = Clock::now() - t0;
      later = rx.read().value_or(-1);
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(first == kpn::ReadStatus::Timeout);
    CHECK(waited >= 20ms);
    CHECK(later == 7);
  }
}

TEST_CASE("read_for returns the message that arrives before the deadline", "[channels][timers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<std::string>(1);
    std::string got;
    Clock::duration waited{};
    net.process("writer", [tx = std::move(tx)]() mutable {
      kpn::sleep_for(10ms);
      tx.write("hello");
    });
    net.process("reader", [rx = std::move(rx), &got, &waited]() mutable {
      const auto t0 = Clock::now();
      auto r = rx.read_for(30s);
      waited = Clock::now() - t0;
      if (r) got = *r;
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(got == "hello");
    CHECK(waited < 20s);
  }
}

TEST_CASE("a timed read reports the end of the stream as closed, not as a timeout", "[channels][timers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(2);
    std::vector<kpn::ReadStatus> seen;
    net.process("writer", [tx = std::move(tx)]() mutable {
      tx.write(1);
      kpn::sleep_for(10ms);
      tx.close();
    });
    net.process("reader", [rx = std::move(rx), &seen]() mutable {
      for (;;) {
        auto r = rx.read_for(10s);
        seen.push_back(r.status());
        if (r.closed()) break;
      }
      seen.push_back(rx.try_read().status());
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(seen == std::vector<kpn::ReadStatus>{kpn::ReadStatus::Ok, kpn::ReadStatus::Closed, kpn::ReadStatus::Closed});
  }
}

TEST_CASE("write_for times out on a channel that stays full and leaves the value to the caller", "[channels][timers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<std::string>(1);
    kpn::WriteStatus timed = kpn::WriteStatus::Ok;
    kpn::WriteStatus retried = kpn::WriteStatus::Timeout;
    std::string kept;
    std::vector<std::string> read;
    net.process("writer", [tx = std::move(tx), &timed, &retried, &kept]() mutable {
      tx.write("first");
      std::string second = "second";
      timed = tx.write_for(std::move(second), 20ms);
      kept = second;
      retried = tx.write_for(std::move(second), 30s);
    });
    net.process("reader", [rx = std::move(rx), &read]() mutable {
      kpn::sleep_for(100ms);
      while (auto v = rx.read()) read.push_back(*v);
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(timed == kpn::WriteStatus::Timeout);
    CHECK(kept == "second");
    CHECK(retried == kpn::WriteStatus::Ok);
    CHECK(read == std::vector<std::string>{"first", "second"});
  }
}

TEST_CASE("try_read and try_write never park", "[channels][timers]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(1);
    std::vector<std::string> log;
    net.process("both", [tx = std::move(tx), rx = std::move(rx), &log]() mutable {
      log.push_back(rx.try_read().timed_out() ? "empty" : "?");
      log.push_back(tx.try_write(1) == kpn::WriteStatus::Ok ? "wrote" : "?");
      log.push_back(tx.try_write(2) == kpn::WriteStatus::Timeout ? "full" : "?");
      auto r = rx.try_read();
      log.push_back(r && *r == 1 ? "read 1" : "?");
      log.push_back(rx.try_read().timed_out() ? "empty" : "?");
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(log == std::vector<std::string>{"empty", "wrote", "full", "read 1", "empty"});
  }
}

TEST_CASE("timed reads and writes never lose or duplicate a message under stress", "[channels][timers]") {
  constexpr int kMessages = 3000;
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(2);
    std::vector<int> got;
    long read_timeouts = 0, write_timeouts = 0;
    // Deadlines of a few tens of microseconds, so that timers fire while messages arrive: every race between
    // the timer and the waker is taken many times.
    net.process("writer", [tx = std::move(tx), &write_timeouts]() mutable {
      for (int i = 0; i < kMessages; ++i) {
        int v = i;
        while (tx.write_for(std::move(v), std::chrono::microseconds(10 + i % 50)) == kpn::WriteStatus::Timeout) {
          ++write_timeouts;
        }
        if (i % 97 == 0) kpn::sleep_for(50us);
      }
    });
    net.process("reader", [rx = std::move(rx), &got, &read_timeouts]() mutable {
      for (int k = 0;; ++k) {
        auto r = rx.read_for(std::chrono::microseconds(5 + k % 40));
        if (r) {
          got.push_back(*r);
        } else if (r.timed_out()) {
          ++read_timeouts;
        } else {
          break;
        }
      }
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(got.size() == static_cast<std::size_t>(kMessages));
    for (int i = 0; i < kMessages; ++i) REQUIRE(got[static_cast<std::size_t>(i)] == i);
    CAPTURE(read_timeouts, write_timeouts);
  }
}

TEST_CASE("a negative duration on read_for or write_for is an invalid_argument", "[channels][timers]") {
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(1);
  std::vector<std::string> errors;
  net.process("p", [tx = std::move(tx), rx = std::move(rx), &errors]() mutable {
    try {
      rx.read_for(-1s);
    } catch (const std::invalid_argument& e) {
      errors.push_back(e.what());
    }
    try {
      tx.write_for(1, -250us);
    } catch (const std::invalid_argument& e) {
      errors.push_back(e.what());
    }
  });
  kpn::Runtime({.cpus = 1}).run(net);
  REQUIRE(errors.size() == 2);
  CHECK_THAT(errors[0], Catch::Contains("read_for") && Catch::Contains("-1 s"));
  CHECK_THAT(errors[1], Catch::Contains("write_for") && Catch::Contains("-250 us"));
}

TEST_CASE("the value of a read that timed out is a logic error", "[channels][timers]") {
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(1);
  bool threw = false;
  net.process("p", [tx = std::move(tx), rx = std::move(rx), &threw]() mutable {
    auto r = rx.try_read();
    try {
      (void)r.value();
    } catch (const std::logic_error&) {
      threw = true;
    }
  });
  kpn::Runtime({.cpus = 1}).run(net);
  CHECK(threw);
}
