// Reserved reads (channels/channel.hpp, runtime/held_reads.hpp): under the policies that allow them, a
// reader takes the messages it finds in one lock round and consumes them without the lock, their slots
// still taken. These tests check the rule that makes that safe: before the reader blocks anywhere, hands
// its endpoint on, or sleeps, it gives the consumed slots back, so a writer waiting on them goes on as it
// would with the exact count. Each network deadlocks (or, with growth disabled, fails) if a hand-back is
// missing: the writer, stuck on slots the reader has consumed, is the one the reader then waits for.
//
// The reader starts reading only once the writer has filled the channel (it yields until then), so that
// its first read finds the channel full and reserves, on every worker count.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include <kpn.hpp>

#include "runtime/held_reads.hpp"
#include "support.hpp"

namespace {

constexpr std::int64_t kCapacity = 8;
constexpr std::int64_t kFirst = 4;                // read before the reader blocks elsewhere
constexpr std::int64_t kTotal = kCapacity + kFirst;  // fits only once the first kFirst slots are free again

// How the reader blocks after its first kFirst reads, on the `go` channel that the writer writes only
// after all kTotal messages of `data`.
enum class BlockBy { Read, TimedRead, Select };

void wait_until_full(const std::atomic<std::int64_t>& written) {
  while (written.load() < kCapacity) kpn::yield();
}

// The reader's two ends, of `data` (capacity kCapacity) and `go`, whose writer the network already has:
// kTotal messages on `data`, then one on `go`. `options` are the writer's.
struct ReaderEnds {
  kpn::Reader<std::int64_t> data;
  kpn::Reader<int> go;
};
ReaderEnds add_channels_and_writer(kpn::Network& net, std::atomic<std::int64_t>& written,
                                   kpn::ProcessOptions options = {}) {
  auto [data_tx, data_rx] = net.channel<std::int64_t>(kCapacity);
  auto [go_tx, go_rx] = net.channel<int>(1);
  net.process("writer", [data = std::move(data_tx), go = std::move(go_tx), &written]() mutable {
    for (std::int64_t i = 0; i < kTotal; ++i) {
      data.write(i);
      written.fetch_add(1);
    }
    go.write(1);
  }, std::move(options));
  return {std::move(data_rx), std::move(go_rx)};
}

// The reader's first kFirst reads, once the writer has filled `data`.
void read_first(kpn::Reader<std::int64_t>& data, const std::atomic<std::int64_t>& written, std::vector<std::int64_t>& got) {
  wait_until_full(written);
  for (std::int64_t i = 0; i < kFirst; ++i) got.push_back(*data.read());
}

void run_without_growth(const kpn::test::Config& cfg, kpn::Network& net) {
  // Growth disabled: a deadlock, which a missing hand-back would cause, fails the run instead of being
  // resolved by growing `data`.
  kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler, .max_capacity = 1}).run(net);
}

std::vector<std::int64_t> expected_values() {
  std::vector<std::int64_t> all;
  for (std::int64_t i = 0; i < kTotal; ++i) all.push_back(i);
  return all;
}

}  // namespace

TEST_CASE("a reader that blocks on another channel first frees the slots it consumed", "[channels]") {
  for (BlockBy how : {BlockBy::Read, BlockBy::TimedRead, BlockBy::Select}) {
    for (const auto& cfg : kpn::test::all_configs()) {
      CAPTURE(static_cast<int>(how), cfg.scheduler, cfg.cpus);
      kpn::Network net;
      std::atomic<std::int64_t> written{0};
      std::vector<std::int64_t> got;
      net.process("reader", [ends = add_channels_and_writer(net, written), how, &written, &got]() mutable {
        auto& [data, go] = ends;
        read_first(data, written, got);
        switch (how) {
          case BlockBy::Read:
            REQUIRE(go.read() == 1);
            break;
          case BlockBy::TimedRead:
            REQUIRE(go.read_for(std::chrono::seconds(60)).value() == 1);
            break;
          case BlockBy::Select:
            REQUIRE(kpn::nondeterministic::select({kpn::nondeterministic::readable(go)}) == 0);
            REQUIRE(go.read() == 1);
            break;
        }
        while (auto v = data.read()) got.push_back(*v);
      });
      run_without_growth(cfg, net);
      REQUIRE(got == expected_values());
    }
  }
}

TEST_CASE("a reader that sleeps lets its writer use the slots it consumed meanwhile", "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::atomic<std::int64_t> written{0};
    std::int64_t written_after_sleep = 0;
    std::vector<std::int64_t> got;
    net.process("reader", [ends = add_channels_and_writer(net, written), &written, &written_after_sleep, &got]() mutable {
      auto& [data, go] = ends;
      read_first(data, written, got);
      // Ample for kFirst writes on any machine; the sleep is what must free the slots, not a wait.
      for (int naps = 0; naps < 200 && written.load() < kTotal; ++naps) kpn::sleep_for(std::chrono::milliseconds(10));
      written_after_sleep = written.load();
      REQUIRE(go.read() == 1);
      while (auto v = data.read()) got.push_back(*v);
    });
    run_without_growth(cfg, net);
    REQUIRE(written_after_sleep == kTotal);
    REQUIRE(got == expected_values());
  }
}

TEST_CASE("a reader endpoint handed to a spawned process keeps the stream in order and frees consumed slots",
          "[channels]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    std::atomic<std::int64_t> written{0};
    std::vector<std::int64_t> first;
    std::vector<std::int64_t> rest;
    // Seen in the two processes, checked after the run: they may run at once, and Catch2's assertions
    // are not for concurrent threads.
    bool reserves = false;  // the run's policy allows reserved reads
    bool held_before_handing_on = false;
    bool held_after_handing_on = true;
    int go_seen_by_heir = 0;
    net.process("reader", [ends = add_channels_and_writer(net, written), &written, &first, &rest, &reserves,
                           &held_before_handing_on, &held_after_handing_on, &go_seen_by_heir]() mutable {
      read_first(ends.data, written, first);
      reserves = kpn::current_run_hands_off();
      held_before_handing_on = kpn::current_process_holds_reads();
      // The child first waits for `go`, which the writer sends only after the slots this process consumed
      // have taken its last messages.
      kpn::spawn("heir", [data = std::move(ends.data), go = std::move(ends.go), &rest, &go_seen_by_heir]() mutable {
        go_seen_by_heir = go.read().value_or(0);
        while (auto v = data.read()) rest.push_back(*v);
      });
      held_after_handing_on = kpn::current_process_holds_reads();
    });
    run_without_growth(cfg, net);
    // It reserved the rest of the full channel where the policy allows (the premise of this test), and
    // handing the endpoint on gave that back: the child found the exact count, and the parent never
    // freed slots the child was reading.
    REQUIRE(held_before_handing_on == reserves);
    REQUIRE_FALSE(held_after_handing_on);
    REQUIRE(go_seen_by_heir == 1);
    std::vector<std::int64_t> got = first;
    got.insert(got.end(), rest.begin(), rest.end());
    REQUIRE(got == expected_values());
  }
}

TEST_CASE("plain reads mixed with timed and non-blocking ones on one channel return the stream in order",
          "[channels]") {
  constexpr std::int64_t kMessages = kpn::test::full_or_sanitized<std::int64_t>(20000, 3000);
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<std::int64_t>(16);
    std::vector<std::int64_t> got;
    net.process("writer", [tx = std::move(tx)]() mutable {
      for (std::int64_t i = 0; i < kMessages; ++i) tx.write(i);
    });
    net.process("reader", [rx = std::move(rx), &got]() mutable {
      for (std::int64_t turn = 0;; ++turn) {
        if (turn % 3 == 1) {
          if (auto r = rx.try_read()) {
            got.push_back(r.value());
            continue;
          }
        } else if (turn % 3 == 2) {
          auto r = rx.read_for(std::chrono::seconds(60));
          if (r.closed()) break;
          got.push_back(r.value());
          continue;
        }
        auto v = rx.read();
        if (!v) break;
        got.push_back(*v);
      }
    });
    kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(got.size() == static_cast<std::size_t>(kMessages));
    for (std::int64_t i = 0; i < kMessages; ++i) REQUIRE(got[static_cast<std::size_t>(i)] == i);
  }
}

TEST_CASE("messages a reader reserved and gave back unconsumed cross workers once in the count", "[channels]") {
  // The writer on worker 0, the reader on worker 1 (gp keeps a pinned process at home), so that every
  // message of `data` and `go` crosses: the count must be the number of messages, exactly. The reader
  // reserves the full channel's kCapacity messages, consumes kFirst, and gives the others back when it
  // blocks on `go`; it reads them again afterwards, and they were counted twice when the count was taken
  // as they were reserved.
  kpn::Network net;
  std::atomic<std::int64_t> written{0};
  std::vector<std::int64_t> got;
  bool held_after_first = false;  // checked after the run (Catch2's assertions are not for worker threads)
  int go_seen = 0;
  net.process("reader", [ends = add_channels_and_writer(net, written, {.home_worker = 0}), &written, &got,
                         &held_after_first, &go_seen]() mutable {
    read_first(ends.data, written, got);
    held_after_first = kpn::current_process_holds_reads();
    go_seen = ends.go.read().value_or(0);
    while (auto v = ends.data.read()) got.push_back(*v);
  }, {.home_worker = 1});
  const kpn::RunReport report = kpn::Runtime({.cpus = 2, .scheduler = "gp", .max_capacity = 1}).run(net);
  REQUIRE(held_after_first);  // the premise: the first read reserved, and kFirst < kCapacity were consumed
  REQUIRE(go_seen == 1);
  REQUIRE(got == expected_values());
  REQUIRE(report.messages == static_cast<std::uint64_t>(kTotal + 1));
  REQUIRE(report.cross_worker_messages == static_cast<std::uint64_t>(kTotal + 1));
}
