// The deadlock check across ranks (distributed/watch.hpp) skips a process once it has ended. "Ended" must
// mean that its channel ends are gone too: a writer that counted as ended while its close was not yet
// posted let two quiet rounds declare a deadlock that the close was about to end (a reader on another
// rank waiting for the end of its stream). No MPI is started here: the wrapper is a plain function.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include <kpn.hpp>

#include "distributed/watch.hpp"
#include "runtime/process_exit.hpp"

namespace d = kpn::distributed;

namespace {

// Stands for a body's channel endpoint: notes, when it goes, whether the process already counted as ended.
struct Endpoint {
  std::shared_ptr<std::atomic<bool>> ended;
  std::shared_ptr<int> destroyed_while_ended;  // -1: not destroyed yet; 0 or 1: the flag then
  Endpoint(std::shared_ptr<std::atomic<bool>> e, std::shared_ptr<int> d) : ended(std::move(e)), destroyed_while_ended(std::move(d)) {}
  Endpoint(Endpoint&& o) noexcept : ended(std::move(o.ended)), destroyed_while_ended(std::move(o.destroyed_while_ended)) {}
  Endpoint(const Endpoint&) = delete;
  ~Endpoint() {
    if (destroyed_while_ended) *destroyed_while_ended = ended->load() ? 1 : 0;
  }
};

struct Fixture {
  std::shared_ptr<std::atomic<bool>> ended = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<int> seen = std::make_shared<int>(-1);
};

// A network with one channel "in" and a rank's watch that knows it and its declared reader, "reader"
// (whose body the test adds, wrapped with `ended`).
struct WatchedReader {
  kpn::Network net;
  std::pair<kpn::Writer<int>, kpn::Reader<int>> ends = net.channel<int>(1, "in");
  std::shared_ptr<kpn::ChannelBase> channel = std::dynamic_pointer_cast<kpn::ChannelBase>(net.channels().back());
  d::RankWatch watch;
  std::shared_ptr<std::atomic<bool>> ended = std::make_shared<std::atomic<bool>>(false);

  WatchedReader() {
    REQUIRE(channel != nullptr);
    watch.add_channel(channel);
    watch.add_process({"reader", {{channel, false}}, ended});
  }
};

}  // namespace

TEST_CASE("a watched process counts as ended only once its channel ends are destroyed", "[distributed][watch]") {
  Fixture f;
  auto body = d::watched_body([e = Endpoint(f.ended, f.seen)] {}, f.ended);
  body();
  CHECK(*f.seen == 0);  // the endpoint went while the process did not yet count as ended
  CHECK(f.ended->load());
}

TEST_CASE("a watched process that ends by ProcessExit counts as ended, its ends released first", "[distributed][watch]") {
  Fixture f;
  auto body = d::watched_body([e = Endpoint(f.ended, f.seen)] { throw kpn::ProcessExit{}; }, f.ended);
  CHECK_NOTHROW(body());
  CHECK(*f.seen == 0);
  CHECK(f.ended->load());
}

TEST_CASE("a watched process that fails propagates its error and leaves its ends to the runtime", "[distributed][watch]") {
  Fixture f;
  auto body = d::watched_body([e = Endpoint(f.ended, f.seen)] { throw std::runtime_error("boom"); }, f.ended);
  CHECK_THROWS_AS(body(), std::runtime_error);
  CHECK(*f.seen == -1);  // the runtime stops the network before the endpoints go (process.cpp)
  CHECK_FALSE(f.ended->load());
  body = nullptr;
  CHECK(*f.seen == 0);
}

TEST_CASE("a rank whose process waits on its channel with a deadline is not stalled, one without a deadline is",
          "[distributed][watch]") {
  using namespace std::chrono_literals;
  for (const bool timed : {false, true}) {
    CAPTURE(timed);
    WatchedReader r;
    // Named references, not a structured binding: lambdas capture them (clang before 16 cannot capture a binding).
    auto& net = r.net;
    auto& channel = r.channel;
    auto& watch = r.watch;
    auto& ended = r.ended;
    auto& [tx, rx] = r.ends;
    net.process("reader", d::watched_body(
                              [rx = std::move(rx), timed]() mutable {
                                if (timed) {
                                  (void)rx.read_for(30s);  // the message comes first: the timer never fires
                                } else {
                                  (void)rx.read();
                                }
                              },
                              ended));
    std::optional<bool> stalled;
    net.process("probe", [tx = std::move(tx), channel, &watch, &stalled]() mutable {
      while (channel->snapshot().reader_waiting == 0) kpn::sleep_for(1ms);
      stalled = watch.sample().stalled;
      tx.write(1);
    });
    kpn::Runtime({.cpus = 1}).run(net);
    REQUIRE(stalled.has_value());
    CHECK(*stalled == !timed);
    CHECK(ended->load());
  }
}

TEST_CASE("a rank with a spawned process alive is not stalled; once the process has finished, the rank is",
          "[distributed][watch]") {
  using namespace std::chrono_literals;
  WatchedReader r;
  auto& net = r.net;
  auto& channel = r.channel;
  auto& watch = r.watch;
  auto& ended = r.ended;
  auto& rx = r.ends.second;
  std::atomic<bool> release_helper{false};
  std::atomic<bool> stop_keeper{false};
  // The reader spawns a helper, undeclared, then waits on its declared channel (its writer's end is held
  // outside the run, so nothing ever comes). The keeper stands for a rank's link poller: it keeps the
  // runtime from taking the lone waiter for a deadlock of its own, and the watch is told of it as a poller.
  net.process("reader", d::watched_body(
                            [rx = std::move(rx), &release_helper]() mutable {
                              kpn::spawn("helper", [&release_helper] {
                                while (!release_helper.load()) kpn::sleep_for(1ms);
                              });
                              (void)rx.read();
                            },
                            ended));
  net.process("keeper", [&stop_keeper] {
    while (!stop_keeper.load()) kpn::sleep_for(1ms);
  });
  kpn::Runtime runtime({.cpus = 1});
  watch.count_live([&runtime] { return runtime.live_processes(); }, [] { return std::int64_t{1}; });
  std::thread run([&] {
    try {
      runtime.run(net);
    } catch (const kpn::RunError&) {  // the interrupt below
    }
  });
  // From outside the run, as the communication thread samples.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  auto wait_for = [&](auto done) {
    while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    return done();
  };
  const bool reader_waits = wait_for([&] { return channel->snapshot().reader_waiting != 0; });
  const bool with_helper = watch.sample().stalled;
  release_helper = true;
  const bool helper_gone = wait_for([&] { return runtime.live_processes() == 2; });
  const bool without_helper = watch.sample().stalled;
  runtime.interrupt();
  stop_keeper = true;
  run.join();
  REQUIRE(reader_waits);
  CHECK_FALSE(with_helper);
  REQUIRE(helper_gone);
  CHECK(without_helper);
}
