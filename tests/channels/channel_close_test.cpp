// How a stream ends: close() or the writer's destruction ends it for the reader (after it drained what
// is left); a write after close() is an error; the reader's destruction ends the writer quietly.

#include <catch2/catch.hpp>

#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

namespace {

kpn::Runtime runtime_for(const kpn::test::Config& cfg) {
  return kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler});
}

// Runs `net` and returns the ProcessFailed it must throw.
kpn::ProcessFailed run_expecting_failure(const kpn::test::Config& cfg, kpn::Network& net) {
  try {
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
  } catch (const kpn::ProcessFailed& e) {
    return e;
  }
  FAIL("run() returned normally; a process should have failed");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("after close the reader drains what is left and then sees end-of-stream", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(8);
    std::vector<int> got;
    int ends_seen = 0;
    // On one worker the writer runs first, so all five messages are still buffered when it closes.
    net.process("writer", [tx = std::move(tx)]() mutable {
      for (int i = 0; i < 5; ++i) tx.write(i);
      tx.close();
      tx.close();  // idempotent
    });
    net.process("reader", [rx = std::move(rx), &got, &ends_seen]() mutable {
      while (auto v = rx.read()) got.push_back(*v);
      ++ends_seen;
      // End-of-stream is sticky.
      if (!rx.read()) ++ends_seen;
      if (!rx.read()) ++ends_seen;
    });
    runtime_for(cfg).run(net);
    REQUIRE(got == std::vector<int>{0, 1, 2, 3, 4});
    REQUIRE(ends_seen == 3);
  }
}

TEST_CASE("a reader waiting on an empty channel wakes with end-of-stream when the channel is closed",
          "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(2);
    bool saw_end = false;
    // The reader is added first, so on one worker it parks on the empty channel before the close.
    net.process("reader", [rx = std::move(rx), &saw_end]() mutable { saw_end = !rx.read().has_value(); });
    net.process("closer", [tx = std::move(tx)]() mutable { tx.close(); });
    runtime_for(cfg).run(net);
    REQUIRE(saw_end);
  }
}

TEST_CASE("destroying the writer closes the channel", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(4);
    auto [ack_tx, ack_rx] = net.channel<int>(1);
    std::vector<int> got;
    bool acked = false;
    // The writer outlives its endpoint: it drops it, then waits for the reader to report end-of-stream.
    // If dropping the endpoint did not close the channel, this would be a deadlock (and run() would throw).
    net.process("writer", [tx = std::move(tx), ack_rx = std::move(ack_rx), &acked]() mutable {
      for (int i = 0; i < 10; ++i) tx.write(i);
      tx = kpn::Writer<int>();
      acked = ack_rx.read().has_value();
    });
    net.process("reader", [rx = std::move(rx), ack_tx = std::move(ack_tx), &got]() mutable {
      while (auto v = rx.read()) got.push_back(*v);
      ack_tx.write(1);
    });
    runtime_for(cfg).run(net);
    REQUIRE(got.size() == 10);
    REQUIRE(acked);
  }
}

TEST_CASE("a writer that ends without closing ends the stream", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(3);
    int sum = 0;
    net.process("writer", [tx = std::move(tx)]() mutable {
      for (int i = 1; i <= 100; ++i) tx.write(i);
    });
    net.process("reader", [rx = std::move(rx), &sum]() mutable {
      while (auto v = rx.read()) sum += *v;
    });
    runtime_for(cfg).run(net);
    REQUIRE(sum == 5050);
  }
}

TEST_CASE("writing after close throws ChannelClosed", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(4, "closed-early");
    bool threw = false;
    std::string what;
    std::vector<int> got;
    net.process("writer", [tx = std::move(tx), &threw, &what]() mutable {
      tx.write(1);
      tx.close();
      try {
        tx.write(2);
      } catch (const kpn::ChannelClosed& e) {
        threw = true;
        what = e.what();
      }
    });
    net.process("reader", [rx = std::move(rx), &got]() mutable {
      while (auto v = rx.read()) got.push_back(*v);
    });
    runtime_for(cfg).run(net);
    REQUIRE(threw);
    REQUIRE_THAT(what, Catch::Contains("closed-early"));
    REQUIRE(got == std::vector<int>{1});
  }
}

TEST_CASE("an uncaught ChannelClosed fails the run with ProcessFailed naming the writer", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(4);
    net.process("late-writer", [tx = std::move(tx)]() mutable {
      tx.write(1);
      tx.close();
      tx.write(2);
    });
    net.process("reader", [rx = std::move(rx)]() mutable {
      while (rx.read()) {
      }
    });
    const kpn::ProcessFailed e = run_expecting_failure(cfg, net);
    REQUIRE(e.process() == "late-writer");
    REQUIRE_THAT(std::string(e.what()), Catch::Contains("late-writer"));
    REQUIRE_THROWS_AS(std::rethrow_exception(e.cause()), kpn::ChannelClosed);
    REQUIRE(e.report() != nullptr);
  }
}

TEST_CASE("destroying the reader makes a blocked write throw BrokenChannel and the writer ends quietly",
          "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(1);
    int written = 0;             // writer only
    bool finished_loop = false;  // writer only
    // On one worker the writer runs first: it fills the channel and parks on its second write; then the
    // reader drops its endpoint without reading, which must wake the writer with BrokenChannel.
    net.process("writer", [tx = std::move(tx), &written, &finished_loop]() mutable {
      for (int i = 0; i < 1000; ++i) {
        tx.write(i);
        ++written;
      }
      finished_loop = true;
    });
    net.process("quitter", [rx = std::move(rx)]() mutable { rx = kpn::Reader<int>(); });
    // BrokenChannel is not a failure: run() returns normally.
    const kpn::RunReport report = runtime_for(cfg).run(net);
    REQUIRE_FALSE(finished_loop);
    REQUIRE(written <= 1);
    if (kpn::test::in_declared_order(cfg)) REQUIRE(written == 1);
    REQUIRE(report.processes == 2);
  }
}

TEST_CASE("a write after the reader is gone throws BrokenChannel naming the channel", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(4, "orphaned");
    auto [go_tx, go_rx] = net.channel<int>(1);
    int broken = 0;
    std::string channel;
    net.process("writer", [tx = std::move(tx), go_rx = std::move(go_rx), &broken, &channel]() mutable {
      (void)go_rx.read();  // the reader is gone from here on
      for (int i = 0; i < 2; ++i) {
        try {
          tx.write(i);
        } catch (const kpn::BrokenChannel& e) {
          ++broken;
          channel = e.channel();
        }
      }
    });
    net.process("quitter", [rx = std::move(rx), go_tx = std::move(go_tx)]() mutable {
      rx = kpn::Reader<int>();
      go_tx.write(0);
    });
    runtime_for(cfg).run(net);
    REQUIRE(broken == 2);
    REQUIRE(channel == "orphaned");
  }
}
