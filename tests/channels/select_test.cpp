#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

// kpn::nondeterministic::select: which end is ready, fairly among ready ones; a selecting process in
// deadlock detection.

using namespace std::chrono_literals;
using kpn::nondeterministic::readable;
using kpn::nondeterministic::select;
using kpn::nondeterministic::select_for;
using kpn::nondeterministic::writable;
using Catch::Matchers::Contains;

TEST_CASE("a select over two always-ready read ends chooses each a fair share of the time", "[channels][select]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    constexpr int kRounds = 2000;
    int chosen[2] = {0, 0};
    net.process("selector", [&] {
      // One process holds both ends of both channels and puts back what it takes: both stay ready.
      auto [a_tx, a_rx] = kpn::channel<int>(1);
      auto [b_tx, b_rx] = kpn::channel<int>(1);
      a_tx.write(0);
      b_tx.write(1);
      for (int i = 0; i < kRounds; ++i) {
        const std::size_t k = select({readable(a_rx), readable(b_rx)});
        ++chosen[k];
        if (k == 0) a_tx.write(*a_rx.read()); else b_tx.write(*b_rx.read());
      }
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    // Uniform choice: each count is within 9 standard deviations (22) of 1000.
    CHECK(chosen[0] > 800);
    CHECK(chosen[1] > 800);
    CHECK(chosen[0] + chosen[1] == kRounds);
  }
}

TEST_CASE("a select over two write ends with room chooses each a fair share of the time", "[channels][select]") {
  kpn::Network net;
  int chosen[2] = {0, 0};
  net.process("selector", [&] {
    auto [a_tx, a_rx] = kpn::channel<int>(1);
    auto [b_tx, b_rx] = kpn::channel<int>(1);
    for (int i = 0; i < 2000; ++i) {
      const std::size_t k = select({writable(a_tx), writable(b_tx)});
      ++chosen[k];
      if (k == 0) { a_tx.write(i); a_rx.read(); } else { b_tx.write(i); b_rx.read(); }
    }
  });
  kpn::Runtime({.cpus = 2}).run(net);
  CHECK(chosen[0] > 800);
  CHECK(chosen[1] > 800);
}

TEST_CASE("a select wakes on whichever channel becomes ready", "[channels][select]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    for (int which : {0, 1}) {
      CAPTURE(cfg.scheduler, cfg.cpus, which);
      kpn::Network net;
      auto [a_tx, a_rx] = net.channel<int>(1, "a");
      auto [b_tx, b_rx] = net.channel<int>(1, "b");
      auto [go_tx, go_rx] = net.channel<int>(1, "go");
      // The feeder ends after its write, which closes its channel (ready either way); the other channel
      // stays open, its writer kept by the selector.
      kpn::Writer<int> fed = which == 0 ? std::move(a_tx) : std::move(b_tx);
      kpn::Writer<int> kept = which == 0 ? std::move(b_tx) : std::move(a_tx);
      std::optional<std::size_t> got;
      int value = -1;
      net.process("selector", [&, a = std::move(a_rx), b = std::move(b_rx), go = std::move(go_tx), kept = std::move(kept)]() mutable {
        go.write(0);  // the feeder writes only after this: the select usually parks first
        const std::size_t k = select({readable(a), readable(b)});
        got = k;
        value = *(k == 0 ? a : b).read();
      });
      net.process("feeder", [&, fed = std::move(fed), go = std::move(go_rx)]() mutable {
        go.read();
        fed.write(40 + which);
      });
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      REQUIRE(got.has_value());
      CHECK(*got == static_cast<std::size_t>(which));
      CHECK(value == 40 + which);
    }
  }
}

TEST_CASE("a select over zero channel ends is an error that says so", "[channels][select]") {
  kpn::Network net;
  std::string message;
  net.process("selector", [&] {
    try {
      select(std::span<const kpn::SelectCase>());
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
  });
  kpn::Runtime({.cpus = 1}).run(net);
  CHECK_THAT(message, Contains("select") && Contains("no channel ends"));
}

TEST_CASE("a select with a negative timeout is an error", "[channels][select]") {
  kpn::Network net;
  bool threw = false;
  net.process("selector", [&] {
    auto [tx, rx] = kpn::channel<int>(1);
    try {
      select_for({readable(rx)}, -1ms);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
  });
  kpn::Runtime({.cpus = 1}).run(net);
  CHECK(threw);
}

TEST_CASE("a closed and drained read end counts as ready and reads the end of the stream", "[channels][select]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [a_tx, a_rx] = net.channel<int>(1, "quiet");
    auto [b_tx, b_rx] = net.channel<int>(1, "ending");
    std::vector<std::size_t> order;
    bool ended = false;
    net.process("selector", [&, a = std::move(a_rx), b = std::move(b_rx), keep = std::move(a_tx)]() mutable {
      // "quiet" never gets a message (its writer is this process); "ending" gets one, then closes.
      order.push_back(select({readable(a), readable(b)}));
      CHECK(b.read() == 7);
      order.push_back(select({readable(a), readable(b)}));
      ended = !b.read().has_value();
    });
    net.process("writer", [b = std::move(b_tx)]() mutable { b.write(7); });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(order == std::vector<std::size_t>{1, 1});
    CHECK(ended);
  }
}

TEST_CASE("select_for gives up when no channel becomes ready before its deadline", "[channels][select]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::optional<std::size_t> got{99};
    std::optional<std::size_t> immediate{99};
    std::chrono::steady_clock::duration waited{};
    net.process("selector", [&] {
      auto [tx, rx] = kpn::channel<int>(1);
      immediate = select_for({readable(rx)}, 0ms);
      const auto t0 = std::chrono::steady_clock::now();
      got = select_for({readable(rx)}, 20ms);
      waited = std::chrono::steady_clock::now() - t0;
      tx.write(1);
      CHECK(select_for({readable(rx)}, 0ms) == std::optional<std::size_t>(0));
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK_FALSE(immediate.has_value());
    CHECK_FALSE(got.has_value());
    CHECK(waited >= 20ms);
  }
}

TEST_CASE("select_for returns the channel that becomes ready before its deadline", "[channels][select]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [a_tx, a_rx] = net.channel<int>(1, "a");
    auto [b_tx, b_rx] = net.channel<int>(1, "b");
    std::optional<std::size_t> got;
    net.process("selector", [&, a = std::move(a_rx), b = std::move(b_rx), keep = std::move(a_tx)]() mutable {
      got = select_for({readable(a), readable(b)}, 1h);
      if (got) b.read();
    });
    net.process("writer", [b = std::move(b_tx)]() mutable { b.write(1); });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(got == std::optional<std::size_t>(1));
  }
}

TEST_CASE("a merge by arrival through select delivers every message exactly once", "[channels][select]") {
  const int n = kpn::test::full_or_sanitized(3000, 300);
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [a_tx, a_rx] = net.channel<int>(2, "a");
    auto [b_tx, b_rx] = net.channel<int>(2, "b");
    auto [out_tx, out_rx] = net.channel<int>(2, "out");
    net.process("left", [count = n, tx = std::move(a_tx)]() mutable {
      for (int i = 0; i < count; ++i) tx.write(2 * i);
    });
    net.process("right", [count = n, tx = std::move(b_tx)]() mutable {
      for (int i = 0; i < count; ++i) tx.write(2 * i + 1);
    });
    net.process("merge", [a = std::move(a_rx), b = std::move(b_rx), out = std::move(out_tx)]() mutable {
      bool open[2] = {true, true};
      while (open[0] || open[1]) {
        std::size_t k = 0;
        if (open[0] && open[1]) k = select({readable(a), readable(b)});
        else k = open[0] ? 0 : 1;
        auto v = (k == 0 ? a : b).read();
        if (v) out.write(*v); else open[k] = false;
      }
    });
    std::vector<int> got;
    net.process("sink", [&, rx = std::move(out_rx)]() mutable {
      while (auto v = rx.read()) got.push_back(*v);
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    // Each input's order is kept; the interleaving is whatever arrived.
    std::vector<int> evens, odds;
    for (int v : got) (v % 2 == 0 ? evens : odds).push_back(v);
    REQUIRE(evens.size() == static_cast<std::size_t>(n));
    REQUIRE(odds.size() == static_cast<std::size_t>(n));
    CHECK(std::is_sorted(evens.begin(), evens.end()));
    CHECK(std::is_sorted(odds.begin(), odds.end()));
  }
}

TEST_CASE("a selecting process whose channels' writers all wait for it is reported as a deadlock",
          "[channels][select][deadlock]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [a_tx, a_rx] = net.channel<int>(1, "a");
    auto [b_tx, b_rx] = net.channel<int>(1, "b");
    auto [c_tx, c_rx] = net.channel<int>(1, "c");
    auto [d_tx, d_rx] = net.channel<int>(1, "d");
    // "selector" waits on a or b; their writers wait to read c and d, which only "selector" writes.
    net.process("selector", [a = std::move(a_rx), b = std::move(b_rx), c = std::move(c_tx), d = std::move(d_tx)]() mutable {
      select({readable(a), readable(b)});
      c.write(0);
      d.write(0);
    });
    net.process("left", [a = std::move(a_tx), c = std::move(c_rx)]() mutable {
      c.read();
      a.write(1);
    });
    net.process("right", [b = std::move(b_tx), d = std::move(d_rx)]() mutable {
      d.read();
      b.write(1);
    });
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("no deadlock reported");
    } catch (const kpn::DeadlockError& e) {
      const auto& blocked = e.blocked();
      const auto selector = std::count_if(blocked.begin(), blocked.end(), [](const auto& b) { return b.process == "selector"; });
      CHECK(selector == 2);  // once per channel it waits on
      CHECK_THAT(std::string(e.what()), Contains("left") && Contains("right"));
    }
  }
}

TEST_CASE("a selecting process with one channel still fed is not reported as a deadlock", "[channels][select][deadlock]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [a_tx, a_rx] = net.channel<int>(1, "a");
    auto [b_tx, b_rx] = net.channel<int>(1, "b");
    auto [c_tx, c_rx] = net.channel<int>(1, "c");
    int from_a = 0, from_b = 0;
    // "waiter" blocks on c (written by "selector" only once b has ended); "feeder" keeps b busy meanwhile.
    net.process("selector", [&, a = std::move(a_rx), b = std::move(b_rx), c = std::move(c_tx)]() mutable {
      bool b_open = true, a_open = true;
      while (a_open || b_open) {
        std::size_t k = 0;
        if (a_open && b_open) k = select({readable(a), readable(b)});
        else k = a_open ? 0 : 1;
        auto v = (k == 0 ? a : b).read();
        if (!v) {
          (k == 0 ? a_open : b_open) = false;
          if (k == 1) c.write(0);
        } else {
          ++(k == 0 ? from_a : from_b);
        }
      }
    });
    net.process("waiter", [a = std::move(a_tx), c = std::move(c_rx)]() mutable {
      c.read();
      a.write(1);
    });
    net.process("feeder", [b = std::move(b_tx)]() mutable {
      for (int i = 0; i < 500; ++i) b.write(i);
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler, .local_deadlock_scan_ms = 1}).run(net);
    CHECK(from_a == 1);
    CHECK(from_b == 500);
  }
}

TEST_CASE("a select waiting to write on a full channel lets Parks' rule grow it", "[channels][select][deadlock]") {
  kpn::Network net;
  auto [a_tx, a_rx] = net.channel<int>(1, "a");
  auto [s_tx, s_rx] = net.channel<int>(1, "signal");
  int sum = 0;
  // "producer" must put 4 messages into a (capacity 1) before it signals; "consumer" waits for the signal.
  net.process("producer", [a = std::move(a_tx), s = std::move(s_tx)]() mutable {
    for (int i = 1; i <= 4; ++i) {
      select({writable(a)});
      a.write(i);
    }
    s.write(0);
  });
  net.process("consumer", [&, a = std::move(a_rx), s = std::move(s_rx)]() mutable {
    s.read();
    while (auto v = a.read()) sum += *v;
  });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2}).run(net);
  CHECK(sum == 10);
  CHECK(r.deadlocks_resolved >= 1);
}
