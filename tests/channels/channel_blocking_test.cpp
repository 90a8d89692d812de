// A write blocks while its channel is full, a read while it is empty.
//
// The bounds are observed with counters shared by the two processes. Each side counts conservatively
// (the reader counts a read before it starts, the writer a write after it returns), so the bound holds
// exactly on every configuration. On one worker scheduling is deterministic (processes start in the
// order they were added, and switch only where they block), which lets us also check that the bound is
// reached: the writer really runs ahead until the channel is full and only then blocks.

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

namespace {

const kpn::ProcessReport* find_process(const kpn::RunReport& report, const std::string& name) {
  for (const auto& p : report.process_details) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a writer is never more than capacity messages ahead of its reader", "[channels]") {
  constexpr std::int64_t kMessages = 2000;
  for (const auto& cfg : kpn::test::all_configs()) {
    for (std::size_t capacity : {1u, 3u, 8u}) {
      CAPTURE(cfg.scheduler, cfg.cpus, capacity);
      kpn::Network net;
      auto [tx, rx] = net.channel<std::int64_t>(capacity);
      std::atomic<std::int64_t> reads_started{0};
      std::int64_t max_lead = 0;  // written by the writer only, read after run()
      std::int64_t received = 0;  // written by the reader only
      net.process("writer", [tx = std::move(tx), &reads_started, &max_lead]() mutable {
        for (std::int64_t i = 0; i < kMessages; ++i) {
          tx.write(i);
          const std::int64_t lead = (i + 1) - reads_started.load();
          if (lead > max_lead) max_lead = lead;
        }
      });
      net.process("reader", [rx = std::move(rx), &reads_started, &received]() mutable {
        for (;;) {
          reads_started.fetch_add(1);
          if (!rx.read()) break;
          ++received;
        }
      });
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      REQUIRE(received == kMessages);
      REQUIRE(max_lead <= static_cast<std::int64_t>(capacity));
      if (kpn::test::in_declared_order(cfg)) REQUIRE(max_lead == static_cast<std::int64_t>(capacity));
    }
  }
}

TEST_CASE("a reader never gets ahead of its writer and waits while the channel is empty", "[channels]") {
  constexpr std::int64_t kMessages = 2000;
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [tx, rx] = net.channel<std::int64_t>(4);
    std::atomic<std::int64_t> writes_started{0};
    std::atomic<bool> reader_entered{false};
    bool writer_saw_reader_first = false;  // written by the writer only
    std::int64_t max_lead = 0;             // reads completed minus writes started; written by the reader only
    std::vector<std::int64_t> got;
    // The reader is added first, so on one worker it runs first and finds the channel empty.
    net.process("reader", [rx = std::move(rx), &writes_started, &reader_entered, &max_lead, &got]() mutable {
      reader_entered.store(true);
      while (auto v = rx.read()) {
        got.push_back(*v);
        const std::int64_t lead = static_cast<std::int64_t>(got.size()) - writes_started.load();
        if (lead > max_lead) max_lead = lead;
      }
    });
    net.process("writer", [tx = std::move(tx), &writes_started, &reader_entered, &writer_saw_reader_first]() mutable {
      writer_saw_reader_first = reader_entered.load();
      for (std::int64_t i = 0; i < kMessages; ++i) {
        writes_started.fetch_add(1);
        tx.write(i);
      }
    });
    const kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(got.size() == static_cast<std::size_t>(kMessages));
    for (std::int64_t i = 0; i < kMessages; ++i) REQUIRE(got[static_cast<std::size_t>(i)] == i);
    REQUIRE(max_lead <= 0);
    if (kpn::test::in_declared_order(cfg)) {
      // The reader entered read() before anything was written, so it must have parked and been resumed.
      REQUIRE(writer_saw_reader_first);
      const kpn::ProcessReport* reader = find_process(report, "reader");
      REQUIRE(reader != nullptr);
      REQUIRE(reader->switches >= 2);
    }
  }
}
