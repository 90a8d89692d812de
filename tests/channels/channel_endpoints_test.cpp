// A channel has one writer and one reader, each used by one process at a time: an endpoint binds to the
// first process that uses it, a use by any other process (or by no process) is ChannelMisuse, and moving
// the endpoint into a new process is how it is handed over.

#include <catch2/catch.hpp>

#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

using namespace std::chrono_literals;

namespace {

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

// A message that may carry the writer of the channel it travels on.
struct Parcel {
  kpn::Writer<Parcel> writer;
  int number = 0;
};

// The reader's side of the parcel tests: records each parcel's number, and with a writer that arrived
// writes 2 and lets it go, which ends the stream.
void read_parcels(kpn::Reader<Parcel>& rx, std::vector<int>& got) {
  while (auto p = rx.read()) {
    got.push_back(p->number);
    if (p->writer) {
      p->writer.write(Parcel{{}, 2});
      p->writer = kpn::Writer<Parcel>();
    }
  }
}

std::string cause_message(const kpn::ProcessFailed& e) {
  try {
    std::rethrow_exception(e.cause());
  } catch (const kpn::ChannelMisuse& m) {
    return m.what();
  } catch (...) {
  }
  return "(not a ChannelMisuse)";
}

}  // namespace

TEST_CASE("a writer shared by two processes fails the second one with ChannelMisuse", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    // Both endpoints stay here, outside the processes; the two processes share the writer by reference.
    auto [tx, rx] = net.channel<int>(4, "shared-writer");
    auto [turn_tx, turn_rx] = net.channel<int>(1);
    net.process("first", [&tx = tx, turn_tx = std::move(turn_tx)]() mutable {
      tx.write(1);
      turn_tx.write(0);  // the token orders "first" before "second" on every configuration
    });
    net.process("second", [&tx = tx, turn_rx = std::move(turn_rx)]() mutable {
      (void)turn_rx.read();
      tx.write(2);
    });
    const kpn::ProcessFailed e = run_expecting_failure(cfg, net);
    REQUIRE(e.process() == "second");
    REQUIRE_THROWS_AS(std::rethrow_exception(e.cause()), kpn::ChannelMisuse);
    const std::string why = cause_message(e);
    REQUIRE_THAT(why, Catch::Contains("shared-writer") && Catch::Contains("first"));
  }
}

TEST_CASE("a reader shared by two processes fails the second one with ChannelMisuse", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(4, "shared-reader");
    auto [turn_tx, turn_rx] = net.channel<int>(1);
    int first_got = -1;
    net.process("writer", [tx = std::move(tx)]() mutable {
      tx.write(1);
      tx.write(2);
    });
    net.process("first", [&rx = rx, turn_tx = std::move(turn_tx), &first_got]() mutable {
      first_got = rx.read().value_or(-2);
      turn_tx.write(0);
    });
    net.process("second", [&rx = rx, turn_rx = std::move(turn_rx)]() mutable {
      (void)turn_rx.read();
      (void)rx.read();
    });
    const kpn::ProcessFailed e = run_expecting_failure(cfg, net);
    REQUIRE(e.process() == "second");
    REQUIRE_THROWS_AS(std::rethrow_exception(e.cause()), kpn::ChannelMisuse);
    REQUIRE(first_got == 1);
  }
}

TEST_CASE("using an endpoint outside any process throws ChannelMisuse", "[channels]") {
  SECTION("a free channel") {
    auto [tx, rx] = kpn::channel<int>(2);
    REQUIRE_THROWS_AS(tx.write(1), kpn::ChannelMisuse);
    REQUIRE_THROWS_AS(rx.read(), kpn::ChannelMisuse);
  }
  SECTION("a network's channel") {
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(2);
    REQUIRE_THROWS_AS(tx.write(1), kpn::ChannelMisuse);
    REQUIRE_THROWS_AS(rx.read(), kpn::ChannelMisuse);
  }
}

TEST_CASE("moving an endpoint into a new process hands it over", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(2);
    std::vector<int> got;
    // Each endpoint is used by one process, then moved into a process it spawns, which goes on using it.
    net.process("writer", [tx = std::move(tx)]() mutable {
      for (int i = 0; i < 50; ++i) tx.write(i);
      kpn::spawn("writer-heir", [tx = std::move(tx)]() mutable {
        for (int i = 50; i < 100; ++i) tx.write(i);
      });
    });
    net.process("reader", [rx = std::move(rx), &got]() mutable {
      for (int i = 0; i < 30; ++i) got.push_back(rx.read().value_or(-1));
      kpn::spawn("reader-heir", [rx = std::move(rx), &got]() mutable {
        while (auto v = rx.read()) got.push_back(*v);
      });
    });
    const kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(report.processes == 4);
    REQUIRE(got.size() == 100);
    for (int i = 0; i < 100; ++i) REQUIRE(got[static_cast<std::size_t>(i)] == i);
  }
}

TEST_CASE("an endpoint sent over a channel can be used by the process that receives it", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(2);
    auto [pass_tx, pass_rx] = net.channel<kpn::Writer<int>>(1);
    int sum = 0;
    net.process("giver", [tx = std::move(tx), pass_tx = std::move(pass_tx)]() mutable {
      for (int i = 1; i <= 10; ++i) tx.write(i);
      pass_tx.write(std::move(tx));
    });
    net.process("taker", [pass_rx = std::move(pass_rx)]() mutable {
      auto tx = pass_rx.read();
      if (!tx) throw std::runtime_error("no writer arrived");
      for (int i = 11; i <= 20; ++i) tx->write(i);
    });
    net.process("reader", [rx = std::move(rx), &sum]() mutable {
      while (auto v = rx.read()) sum += *v;
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(sum == 210);
  }
}

// The hand-over of a used endpoint takes its channel's lock; a timed write must not do it under the lock
// of the channel it writes to, which here is the same lock (it hung before the value left the caller's
// object first).
TEST_CASE("a writer sent down its own channel by a timed write reaches the reader", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<Parcel>(4);
    kpn::WriteStatus sent = kpn::WriteStatus::Timeout;
    std::vector<int> got;
    net.process("sender", [tx = std::move(tx), &sent]() mutable {
      Parcel p{std::move(tx), 1};
      p.writer.write(Parcel{{}, 0});  // binds the writer to this process
      sent = p.writer.try_write(std::move(p));
    });
    net.process("receiver", [rx = std::move(rx), &got]() mutable { read_parcels(rx, got); });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(sent == kpn::WriteStatus::Ok);
    CHECK(got == std::vector<int>{0, 1, 2});
  }
}

TEST_CASE("a timed write that times out leaves the endpoint in its value usable by the caller", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<Parcel>(1);
    auto [go_tx, go_rx] = net.channel<int>(1);
    kpn::WriteStatus timed = kpn::WriteStatus::Ok;
    kpn::WriteStatus sent = kpn::WriteStatus::Timeout;
    std::vector<int> got;
    net.process("sender", [tx = std::move(tx), go_tx = std::move(go_tx), &timed, &sent]() mutable {
      Parcel p{std::move(tx), 1};
      p.writer.write(Parcel{{}, 0});  // fills the channel: the reader waits for the go
      timed = p.writer.try_write(std::move(p));
      go_tx.write(1);
      sent = p.writer.write_for(std::move(p), 30s);
    });
    net.process("receiver", [rx = std::move(rx), go_rx = std::move(go_rx), &got]() mutable {
      go_rx.read();
      read_parcels(rx, got);
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(timed == kpn::WriteStatus::Timeout);
    CHECK(sent == kpn::WriteStatus::Ok);
    CHECK(got == std::vector<int>{0, 1, 2});
  }
}
