#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>
#include <string>

#include <kpn.hpp>

#include "runtime/deadlocked_pair.hpp"
#include "support.hpp"

// Local deadlocks: a cycle of blocked processes while other processes keep running. Global detection
// never fires here, because the busy part never blocks for good; only the periodic scan can end these runs.

namespace {

// A producer and a consumer that keep running until `stop` is set (never, for the true deadlock).
void add_busy_part(kpn::Network& net, std::atomic<bool>& stop, std::atomic<long>& consumed) {
  auto [tx, rx] = net.channel<long>(4, "busy");
  net.process("busy-producer", [tx = std::move(tx), &stop]() mutable {
    for (long i = 0; !stop.load(std::memory_order_relaxed); ++i) tx.write(i);
  });
  net.process("busy-consumer", [rx = std::move(rx), &consumed]() mutable {
    while (rx.read()) consumed.fetch_add(1, std::memory_order_relaxed);
  });
}

}  // namespace

TEST_CASE("a true local deadlock is reported while the rest of the network still runs", "[runtime][deadlock]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    std::atomic<bool> stop{false};
    std::atomic<long> consumed{0};
    kpn::Network net;
    kpn::test::add_deadlocked_pair(net, "a", "b");
    // Declared after the pair so that they run first: on one worker the work-stealing policies run the
    // most recently woken process first (LIFO), and a producer and consumer that wake each other forever
    // would keep a pair that never ran at the back of the queue.
    add_busy_part(net, stop, consumed);
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("the local deadlock was not reported");
    } catch (const kpn::DeadlockError& e) {
      CHECK(e.local());
      CHECK_THAT(e.what(), Catch::Matchers::Contains("local deadlock"));
      CHECK(kpn::test::sorted_cycle(e) == std::vector<std::string>{"a", "b"});
      REQUIRE(e.blocked().size() == 2);
      // The busy part was running all along: it moved messages and was unwound, not finished.
      CHECK(consumed.load() > 0);
    }
  }
}

TEST_CASE("an artificial local deadlock is resolved by growing a full channel of the cycle", "[runtime][deadlock]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    std::atomic<bool> stop{false};
    std::atomic<long> consumed{0};
    std::atomic<int> finished{0};
    kpn::Network net;
    auto [ab_tx, ab_rx] = net.channel<int>(1, "a->b");
    auto [ba_tx, ba_rx] = net.channel<int>(1, "b->a");
    // First a handshake (so that both ends of both channels have been used and kpn knows who is where),
    // then both write two messages into a channel of capacity 1 before reading: each blocks on its second
    // write, a cycle of writers on full channels.
    // Catch2's assertions are not thread-safe: processes count mismatches, the test checks after the run.
    std::atomic<int> wrong{0};
    auto pair = [&finished, &stop, &wrong](bool first, kpn::Writer<int> out, kpn::Reader<int> in) {
      return [first, out = std::move(out), in = std::move(in), &finished, &stop, &wrong]() mutable {
        auto expect = [&](int v) {
          if (in.read() != v) wrong.fetch_add(1);
        };
        if (first) {
          out.write(0);
          expect(0);
        } else {
          expect(0);
          out.write(0);
        }
        out.write(1);
        out.write(2);
        expect(1);
        expect(2);
        if (finished.fetch_add(1) == 1) stop = true;  // the second to finish lets the busy part end
      };
    };
    net.process("a", pair(true, std::move(ab_tx), std::move(ba_rx)));
    net.process("b", pair(false, std::move(ba_tx), std::move(ab_rx)));
    add_busy_part(net, stop, consumed);  // after the pair, as above
    const kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    CHECK(finished.load() == 2);
    CHECK(wrong.load() == 0);
    CHECK(report.deadlocks_resolved >= 1);
  }
}

TEST_CASE("a local deadlock beside processes that compute 50 ms per message is reported within a second",
          "[runtime][deadlock]") {
  // The scan must not wait for workers to reach a pause point: here every worker is inside a 50 ms
  // computation whenever it looks.
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [ab_tx, ab_rx] = net.channel<int>(1, "a->b");
    auto [ba_tx, ba_rx] = net.channel<int>(1, "b->a");
    // The cycle closes when the later of the two enters its last read: each blocks there at once (the other
    // has written all it ever will). The clock starts then.
    std::atomic<std::int64_t> a_ns{0}, b_ns{0};
    auto now_ns = [] { return std::chrono::steady_clock::now().time_since_epoch().count(); };
    net.process("a", [out = std::move(ab_tx), in = std::move(ba_rx), &a_ns, now_ns]() mutable {
      out.write(1);
      in.read();
      a_ns = now_ns();
      in.read();
    });
    net.process("b", [in = std::move(ab_rx), out = std::move(ba_tx), &b_ns, now_ns]() mutable {
      in.read();
      out.write(1);
      b_ns = now_ns();
      in.read();
    });
    // The busy part waits (yielding) until the cycle has closed. Without that the pair may never get to
    // close it: the work-stealing policies run the most recently woken process first (LIFO, as the Nornir
    // paper specifies; not fair), so two computing pairs that keep waking each other can hold every worker
    // while a woken `a` sits behind them, and no worker is ever idle to steal it. A yield goes to the back.
    auto wait_for_cycle = [&a_ns, &b_ns] {
      while (a_ns.load() == 0 || b_ns.load() == 0) kpn::yield();
    };
    // Two pipelines of busy processes, so every worker is kept computing.
    for (int k = 0; k < 2; ++k) {
      auto [tx, rx] = net.channel<int>(1, "busy-" + std::to_string(k));
      net.process("compute-" + std::to_string(k), [tx = std::move(tx), wait_for_cycle]() mutable {
        wait_for_cycle();
        for (int i = 0;; ++i) {
          const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
          while (std::chrono::steady_clock::now() < until) {
          }
          tx.write(i);
        }
      });
      net.process("drain-" + std::to_string(k), [rx = std::move(rx), wait_for_cycle]() mutable {
        wait_for_cycle();
        while (rx.read()) {
          const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
          while (std::chrono::steady_clock::now() < until) {
          }
        }
      });
    }
    try {
      kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
      FAIL("the local deadlock was not reported");
    } catch (const kpn::DeadlockError& e) {
      const std::int64_t formed = std::max(a_ns.load(), b_ns.load());
      const double took = static_cast<double>(now_ns() - formed) / 1e9;
      CAPTURE(took);
      CHECK(e.local());
      CHECK(kpn::test::sorted_cycle(e) == std::vector<std::string>{"a", "b"});
      // One scan period (200 ms) plus the 50 ms a worker may still compute before it sees the stop; the
      // sanitizers slow everything several times over.
      CHECK(took < (std::string(KPN_SANITIZER).empty() ? 1.0 : 5.0));
    }
  }
}
