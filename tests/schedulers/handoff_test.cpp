#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <kpn.hpp>

#include "schedulers/scheduler_stat.hpp"
#include "spin_for.hpp"
#include "support.hpp"

// The handoff policy's own promises: idle workers sleep and are woken for new work, a woken process runs
// next without starving the rest, and stopping reaches sleeping workers. (Every other test runs it too, as
// one of all_configs().)

using kpn::test::scheduler_stat;
using kpn::test::spin_for;

namespace {

// Waits until `flag` is set, for at most `limit` (a process that never blocks, watching another's
// progress); false if the limit passed first.
bool wait_until_set(const std::atomic<bool>& flag, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

// Adds a chain of `length` processes joined by capacity-1 channels, declared in order: the first writes 1, each
// after it computes for `work` (none if zero), then writes what it reads plus 1, and the last stores what it
// reads in `received` (length - 1 when every value got through).
void add_chain(kpn::Network& net, int length, std::chrono::microseconds work, int& received) {
  kpn::Reader<int> prev;
  for (int i = 0; i < length; ++i) {
    const std::string name = "p" + std::to_string(i);
    if (i + 1 == length) {
      net.process(name, [rx = std::move(prev), &received]() mutable { received = *rx.read(); });
      return;
    }
    auto [tx, rx] = net.channel<int>(1);
    if (i == 0) {
      net.process(name, [tx = std::move(tx)]() mutable { tx.write(1); });
    } else {
      net.process(name, [rx = std::move(prev), tx = std::move(tx), work]() mutable {
        if (work.count() > 0) spin_for(work);
        tx.write(*rx.read() + 1);
      });
    }
    prev = std::move(rx);
  }
}

// Adds the chain of add_chain declared against its data's direction: process 0 stores what it reads in
// `received`, process i (0 < i < length - 1) reads from process i + 1 and writes what it reads plus 1 to
// process i - 1, and the last writes 1. Started in declaration order, every process but the last waits for
// the one declared after it.
void add_backwards_chain(kpn::Network& net, int length, int& received) {
  std::vector<kpn::Writer<int>> writers;
  std::vector<kpn::Reader<int>> readers;
  for (int i = 0; i + 1 < length; ++i) {
    auto [tx, rx] = net.channel<int>(1);
    writers.push_back(std::move(tx));
    readers.push_back(std::move(rx));
  }
  // Process i reads from channel i (written by process i + 1) and writes to channel i - 1.
  for (int i = 0; i < length; ++i) {
    const std::string name = "q" + std::to_string(i);
    if (i == 0) {
      net.process(name, [rx = std::move(readers[0]), &received]() mutable { received = *rx.read(); });
    } else if (i + 1 == length) {
      net.process(name, [tx = std::move(writers[static_cast<std::size_t>(i - 1)])]() mutable { tx.write(1); });
    } else {
      net.process(name, [rx = std::move(readers[static_cast<std::size_t>(i)]),
                         tx = std::move(writers[static_cast<std::size_t>(i - 1)])]() mutable { tx.write(*rx.read() + 1); });
    }
  }
}

}  // namespace

TEST_CASE("handoff: an idle worker sleeps instead of spinning while another computes", "[schedulers][handoff]") {
  kpn::Network net;
  net.process("busy", [] { spin_for(std::chrono::milliseconds(200)); });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "handoff"}).run(net);
  CHECK(scheduler_stat(r, "sleeps") >= 1);
  // ws-last makes about a million steal attempts in 200 ms here; a sleeping worker makes a few rounds.
  CHECK(r.steal_attempts < 1000);
}

TEST_CASE("handoff: a process spawned by a computing process wakes a sleeping worker and runs beside it",
          "[schedulers][handoff]") {
  for (unsigned cpus : {2u, 4u}) {
    CAPTURE(cpus);
    std::atomic<bool> child_ran{false};
    std::atomic<bool> gave_up{false};
    kpn::Network net;
    net.process("parent", [&] {
      // Let the other workers go to sleep first.
      spin_for(std::chrono::milliseconds(20));
      kpn::spawn("child", [&] { child_ran = true; });
      // The parent never blocks or yields: the child can only run on another worker, which must wake.
      if (!wait_until_set(child_ran, std::chrono::seconds(20))) gave_up = true;
    });
    const kpn::RunReport r = kpn::Runtime({.cpus = cpus, .scheduler = "handoff"}).run(net);
    CHECK(child_ran.load());
    CHECK_FALSE(gave_up.load());
    CHECK(scheduler_stat(r, "wakeups") >= 1);
  }
}

TEST_CASE("handoff: many short bursts of work separated by idle spells all complete", "[schedulers][handoff]") {
  for (unsigned cpus : {1u, 2u, 4u}) {
    CAPTURE(cpus);
    constexpr int kRounds = 200;
    constexpr int kFanOut = 4;
    long total = 0;
    kpn::Network net;
    net.process("root", [&] {
      for (int round = 0; round < kRounds; ++round) {
        // Idle spell: the other workers find nothing and go to sleep.
        spin_for(std::chrono::microseconds(200));
        std::vector<kpn::Reader<long>> replies;
        for (int k = 0; k < kFanOut; ++k) {
          auto [tx, rx] = kpn::channel<long>(1, "reply-" + std::to_string(round) + "-" + std::to_string(k));
          replies.push_back(std::move(rx));
          kpn::spawn("burst-" + std::to_string(round) + "-" + std::to_string(k),
                     [out = std::move(tx), v = long{round * kFanOut + k}]() mutable { out.write(v); });
        }
        for (auto& rx : replies) total += *rx.read();
      }
    });
    kpn::Runtime({.cpus = cpus, .scheduler = "handoff"}).run(net);
    const long n = long{kRounds} * kFanOut;
    CHECK(total == n * (n - 1) / 2);
  }
}

TEST_CASE("handoff: two processes waking each other do not starve a third on the same worker",
          "[schedulers][handoff]") {
  // One worker: a and b ping-pong up to kLimit times; c needs the CPU 1,000 times (it yields). If the
  // next slot always won, c would finish only after the ping-pong; the streak cap lets it in every
  // kRunnextStreak hand-offs.
  constexpr long kLimit = 2'000'000;
  std::atomic<bool> c_done{false};
  std::atomic<long> rounds_when_c_done{-1};
  std::atomic<long> rounds{0};
  kpn::Network net;
  auto [ab_tx, ab_rx] = net.channel<long>(1, "a->b");
  auto [ba_tx, ba_rx] = net.channel<long>(1, "b->a");
  net.process("a", [out = std::move(ab_tx), in = std::move(ba_rx), &c_done, &rounds]() mutable {
    for (long i = 0; i < kLimit && !c_done.load(std::memory_order_relaxed); ++i) {
      out.write(i);
      in.read();
      rounds.store(i + 1, std::memory_order_relaxed);
    }
  });
  net.process("b", [in = std::move(ab_rx), out = std::move(ba_tx)]() mutable {
    while (auto v = in.read()) out.write(*v);
  });
  net.process("c", [&] {
    for (int i = 0; i < 1000; ++i) kpn::yield();
    rounds_when_c_done = rounds.load();
    c_done = true;
  });
  kpn::Runtime({.cpus = 1, .scheduler = "handoff"}).run(net);
  REQUIRE(c_done.load());
  CHECK(rounds_when_c_done.load() < kLimit);
}

TEST_CASE("handoff: a process handed off by a process that then computes runs on another worker meanwhile",
          "[schedulers][handoff]") {
  // b parks on its input; a readies it (into a's worker's next slot: a has only ever run briefly) and then
  // computes without blocking. The hand-off would wait for a's computation; an idle worker must take b
  // instead (a stale next slot, or its home's queue), while a still computes.
  for (unsigned cpus : {2u, 4u}) {
    CAPTURE(cpus);
    std::atomic<bool> b_ran{false};
    std::atomic<bool> gave_up{false};
    kpn::Network net;
    auto [tx, rx] = net.channel<int>(1, "a->b");
    auto [ready_tx, ready_rx] = net.channel<int>(1, "b->a");
    net.process("a", [out = std::move(tx), ready = std::move(ready_rx), &b_ran, &gave_up]() mutable {
      ready.read();
      spin_for(std::chrono::milliseconds(1));  // b parks on its read meanwhile
      out.write(1);
      if (!wait_until_set(b_ran, std::chrono::seconds(20))) gave_up = true;
    });
    net.process("b", [in = std::move(rx), ready = std::move(ready_tx), &b_ran]() mutable {
      ready.write(0);
      in.read();
      b_ran = true;
    });
    kpn::Runtime({.cpus = cpus, .scheduler = "handoff"}).run(net);
    CHECK(b_ran.load());
    CHECK_FALSE(gave_up.load());
  }
}

TEST_CASE("handoff: a process woken from a worker with a queue waits for its busy home, which takes it without a steal",
          "[schedulers][handoff]") {
  // Dealt in blocks of two: r and c on worker 0, w and q on worker 1, q queued behind w. r parks on its read; c
  // then runs on worker 0 and computes until w has written. w's write readies r while r's home runs c and
  // w's own worker has q queued: both workers are busy, so r is queued at home, not pulled into worker 1's
  // next slot (where, with w still computing, worker 0 would have had to take it back as a stale hand-off).
  // When c ends, worker 0 takes r from its own queue.
  std::atomic<bool> c_running{false};
  std::atomic<bool> written{false};
  std::atomic<bool> r_ran{false};
  std::atomic<int> r_worker{-1};
  std::atomic<int> c_worker{-1};
  std::atomic<bool> gave_up{false};
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(1, "w->r");
  net.process("r", [in = std::move(rx), &r_ran, &r_worker]() mutable {
    in.read();
    r_worker = kpn::this_process::worker();
    r_ran = true;
  });
  net.process("c", [&] {
    c_worker = kpn::this_process::worker();
    c_running = true;
    if (!wait_until_set(written, std::chrono::seconds(20))) gave_up = true;
  });
  net.process("w", [out = std::move(tx), &c_running, &written, &r_ran, &gave_up]() mutable {
    if (!wait_until_set(c_running, std::chrono::seconds(20))) gave_up = true;
    out.write(1);
    written = true;
    if (!wait_until_set(r_ran, std::chrono::seconds(20))) gave_up = true;  // worker 1 stays busy meanwhile
  });
  net.process("q", [] {});
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "handoff"}).run(net);
  REQUIRE(r_ran.load());
  CHECK_FALSE(gave_up.load());
  CHECK(r_worker.load() == c_worker.load());
  CHECK(scheduler_stat(r, "next_slot_steals") == 0);
}

TEST_CASE("handoff: the initial network is dealt in consecutive blocks of its declaration order",
          "[schedulers][handoff]") {
  // Each worker's first process is the front of its own queue (a worker takes its own work before it
  // steals), and each first process computes until every worker has started one, so no worker can run
  // anything else before: the first W processes to start are the first of each block. Round-robin would
  // start processes 0 to W - 1.
  const unsigned workers = GENERATE(2u, 3u, 4u);  // 4: more workers than this machine's 2 cores
  CAPTURE(workers);
  constexpr unsigned kPerWorker = 3;
  const unsigned n = workers * kPerWorker;
  std::atomic<unsigned> started{0};
  std::vector<std::atomic<int>> first(workers);
  for (auto& f : first) f = -1;
  std::atomic<bool> gave_up{false};
  kpn::Network net;
  for (unsigned i = 0; i < n; ++i) {
    net.process("p" + std::to_string(i), [i, workers, &started, &first, &gave_up] {
      const unsigned k = started.fetch_add(1);
      if (k < workers) first[k] = static_cast<int>(i);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (started.load() < workers) {
        if (std::chrono::steady_clock::now() > deadline) {
          gave_up = true;
          return;
        }
      }
    });
  }
  kpn::Runtime({.cpus = workers, .scheduler = "handoff"}).run(net);
  REQUIRE_FALSE(gave_up.load());
  std::vector<int> firsts;
  for (auto& f : first) firsts.push_back(f.load());
  std::sort(firsts.begin(), firsts.end());
  std::vector<int> expected;
  for (unsigned w = 0; w < workers; ++w) expected.push_back(static_cast<int>(w * kPerWorker));
  CHECK(firsts == expected);
}

TEST_CASE("handoff: a worker that runs dry while no other queue holds a process makes no steal attempt",
          "[schedulers][handoff]") {
  // Scatter-gather with two worker processes of 50 us each on two workers: at every round's barrier one
  // worker runs dry while nothing is queued anywhere (the master waits for the other's reply). It then
  // looks at the queues' summary, not at the other worker: a failed attempt per round before.
  constexpr int kRounds = 300;
  kpn::Network net;
  std::vector<kpn::Writer<int>> to;
  std::vector<kpn::Reader<int>> from;
  for (int i = 0; i < 2; ++i) {
    auto [tx, rx] = net.channel<int>(1);
    auto [rtx, rrx] = net.channel<int>(1);
    to.push_back(std::move(tx));
    from.push_back(std::move(rrx));
    net.process("worker[" + std::to_string(i) + "]", [in = std::move(rx), out = std::move(rtx)]() mutable {
      while (auto v = in.read()) {
        spin_for(std::chrono::microseconds(50));
        out.write(*v);
      }
    });
  }
  net.process("master", [&to, &from] {
    for (int r = 0; r < kRounds; ++r) {
      for (auto& t : to) t.write(r);
      for (auto& f : from) f.read();
    }
    to.clear();
  });
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "handoff"}).run(net);
  CAPTURE(r.steal_attempts, r.steals);
  // A sanitizer stretches the runtime's own steps against the 50 us of work (3 to 20 times), so the
  // barrier no longer finds every queue empty; the count is the optimised build's promise.
  if (kpn::test::kSanitized) return;
  CHECK(r.steal_attempts - r.steals < static_cast<std::uint64_t>(kRounds / 4));
}

TEST_CASE("handoff: a thief looks only at the queues that hold a process, not at every worker's",
          "[schedulers][handoff]") {
  // Six workers: a spawner and four hogs hold five of them (none ever blocks), so the sixth is the one
  // thief, and the spawner's queue, where every child goes, is the only queue that ever holds work after
  // the start. A thief that visited every worker from a random one on would find four empty queues for
  // every steal, two on average before the spawner's; one that follows the queues' summary finds none. The
  // start, while each worker takes its first process, may race a look or two.
  constexpr unsigned kWorkers = 6;
  constexpr int kChildren = 40;
  std::atomic<int> finished{0};
  std::atomic<bool> done{false};
  kpn::Network net;
  net.process("spawner", [&] {
    for (int i = 0; i < kChildren; ++i) {
      kpn::spawn("child", [&] { ++finished; });
      spin_for(std::chrono::microseconds(300));  // the thief takes the child meanwhile
    }
    while (finished.load() < kChildren) spin_for(std::chrono::microseconds(10));
    done = true;
  });
  for (unsigned i = 0; i + 2 < kWorkers; ++i) {
    net.process("hog[" + std::to_string(i) + "]", [&] {
      while (!done.load()) spin_for(std::chrono::microseconds(10));
    });
  }
  const kpn::RunReport r = kpn::Runtime({.cpus = kWorkers, .scheduler = "handoff"}).run(net);
  CAPTURE(r.steal_attempts, r.steals);
  REQUIRE(finished.load() == kChildren);
  CHECK(r.steals >= 1);
  CHECK(scheduler_stat(r, "empty_queue_probes") <= kWorkers);
}

TEST_CASE("handoff: a master gathering replies on one worker takes them in bulk, not one switch per reply",
          "[schedulers][handoff]") {
  // Scatter-gather on one worker. Each reply readies the master; if the master always ran next it would
  // take one reply and block again, two switches per reply. A master whose last run readied nobody waits
  // behind the queue instead and takes the replies that came meanwhile in one run: about one switch per
  // reply (each worker's run) and two per round for the master.
  constexpr int kWorkers = 16;
  constexpr int kRounds = 200;
  kpn::Network net;
  std::vector<kpn::Writer<int>> to;
  std::vector<kpn::Reader<int>> from;
  for (int i = 0; i < kWorkers; ++i) {
    auto [tx, rx] = net.channel<int>(1);
    auto [rtx, rrx] = net.channel<int>(1);
    to.push_back(std::move(tx));
    from.push_back(std::move(rrx));
    net.process("worker[" + std::to_string(i) + "]", [in = std::move(rx), out = std::move(rtx)]() mutable {
      while (auto v = in.read()) out.write(*v + 1);
    });
  }
  long sum = 0;
  net.process("master", [&to, &from, &sum] {
    for (int r = 0; r < kRounds; ++r) {
      for (auto& t : to) t.write(r);
      for (auto& f : from) sum += *f.read();
    }
    to.clear();
  });
  const kpn::RunReport r = kpn::Runtime({.cpus = 1, .scheduler = "handoff"}).run(net);
  CHECK(sum == static_cast<long>(kWorkers) * kRounds * (kRounds + 1) / 2);
  // About (kWorkers + 2) per round; a master run per reply would make about 2 * kWorkers.
  CHECK(r.context_switches < static_cast<std::uint64_t>(kWorkers * 5 / 4 * kRounds));
}

TEST_CASE("handoff: interrupt reaches workers that sleep while one process computes", "[schedulers][handoff]") {
  std::atomic<bool> started{false};
  kpn::Network net;
  net.process("computes", [&] {
    started = true;
    for (;;) {
      spin_for(std::chrono::milliseconds(1));
      kpn::yield();  // where the stopping run unwinds it
    }
  });
  kpn::Runtime rt({.cpus = 4, .scheduler = "handoff"});
  std::thread stopper([&] {
    while (!started.load()) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the other three workers are asleep by now
    rt.interrupt();
  });
  CHECK_THROWS_AS(rt.run(net), kpn::Interrupted);
  stopper.join();
}

TEST_CASE("handoff: a deadlock is reported while the other workers sleep", "[schedulers][handoff]") {
  for (unsigned cpus : {1u, 2u, 4u}) {
    CAPTURE(cpus);
    kpn::Network net;
    auto [to_b_tx, to_b_rx] = net.channel<int>(1, "a->b");
    auto [to_a_tx, to_a_rx] = net.channel<int>(1, "b->a");
    // Each waits for the other, which never writes: a global deadlock, reached after the other workers
    // have gone to sleep.
    net.process("a", [out = std::move(to_b_tx), in = std::move(to_a_rx)]() mutable {
      spin_for(std::chrono::milliseconds(30));
      in.read();
    });
    net.process("b", [out = std::move(to_a_tx), in = std::move(to_b_rx)]() mutable {
      spin_for(std::chrono::milliseconds(30));
      in.read();
    });
    CHECK_THROWS_AS(kpn::Runtime({.cpus = cpus, .scheduler = "handoff"}).run(net), kpn::DeadlockError);
  }
}

TEST_CASE("handoff: a worker whose starts only park puts off further starts while another worker runs",
          "[schedulers][handoff]") {
  // A chain dealt in two blocks: each process of the second block, started before the first block's value
  // reaches it, would park at once on its empty input and hold a stack. After kFutileStarts such starts its
  // worker puts the others off; the first worker, done with its block, takes them over and runs each with
  // its value there. Without the back-off about half of the chain's stacks were mapped at once.
  // Under a sanitizer a first run may outlast kFutileRunUs, and then half the chain starts and parks, each
  // process with a sanitizer fiber: ThreadSanitizer's registry holds 8,128 at most.
  constexpr int kLength = kpn::test::full_or_sanitized(20'000, 2'000);
  int received = -1;
  kpn::Network net;
  add_chain(net, kLength, std::chrono::microseconds(0), received);
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "handoff"}).run(net);
  CAPTURE(r.stacks_mapped, scheduler_stat(r, "futile_first_runs"), scheduler_stat(r, "put_off_starts"));
  REQUIRE(received == kLength - 1);
  // A sanitizer stretches a futile first run past kFutileRunUs (it then counts as work): the back-off is
  // the optimised build's promise.
  if (kpn::test::kSanitized) return;
  CHECK(scheduler_stat(r, "put_off_starts") >= 1);
  CHECK(r.stacks_mapped < static_cast<std::uint64_t>(kLength / 4));
}

TEST_CASE("handoff: a worker putting off starts still starts them when no other worker runs",
          "[schedulers][handoff]") {
  // Every process but the last waits for the one after it (a chain run backwards), so each start in
  // declaration order parks at once: both workers' starts turn futile. Each worker may put its starts off
  // only while the other runs, so the network still starts every process and finishes.
  constexpr int kLength = 2'000;
  int received = -1;
  kpn::Network net;
  add_backwards_chain(net, kLength, received);
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "handoff"}).run(net);
  CAPTURE(r.stacks_mapped, scheduler_stat(r, "futile_first_runs"), scheduler_stat(r, "put_off_starts"));
  CHECK(received == kLength - 1);
}

TEST_CASE("handoff: a process that computes before it first parks is not a futile start",
          "[schedulers][handoff]") {
  // A chain whose stages compute 100 us before they read: the second worker's stages park in their first
  // run having readied nobody, as in the futile chain above, but only after working longer than
  // kFutileRunUs. Their starts did work, so nothing is put off.
  constexpr int kLength = 64;
  int received = -1;
  kpn::Network net;
  add_chain(net, kLength, std::chrono::microseconds(100), received);
  const kpn::RunReport r = kpn::Runtime({.cpus = 2, .scheduler = "handoff"}).run(net);
  CAPTURE(r.stacks_mapped, scheduler_stat(r, "futile_first_runs"));
  REQUIRE(received == kLength - 1);
  CHECK(scheduler_stat(r, "put_off_starts") == 0);
}

TEST_CASE("handoff: a worker whose starts only park turns its start order around, so a chain declared backwards maps few stacks",
          "[schedulers][handoff]") {
  // Started in declaration order, each process of a backwards chain parks on its empty input and holds a
  // stack until the value comes back up the chain. After kFutileStarts such starts a worker starts from the
  // other end of its fresh processes, where each finds its value waiting: on one worker as on two.
  const unsigned cpus = GENERATE(1u, 2u);
  // Under a sanitizer a first run outlasts kFutileRunUs, so every process starts and parks, each with a
  // sanitizer fiber: ThreadSanitizer's registry holds 8,128 at most.
  constexpr int kLength = kpn::test::full_or_sanitized(20'000, 2'000);
  int received = -1;
  kpn::Network net;
  add_backwards_chain(net, kLength, received);
  const kpn::RunReport r = kpn::Runtime({.cpus = cpus, .scheduler = "handoff"}).run(net);
  CAPTURE(cpus, r.stacks_mapped, scheduler_stat(r, "futile_first_runs"), scheduler_stat(r, "turned_start_orders"));
  REQUIRE(received == kLength - 1);
  // A sanitizer stretches a futile first run past kFutileRunUs (it then counts as work): the turn is the
  // optimised build's promise.
  if (kpn::test::kSanitized) return;
  CHECK(scheduler_stat(r, "turned_start_orders") >= 1);
  CHECK(r.stacks_mapped < static_cast<std::uint64_t>(kLength / 4));
}
