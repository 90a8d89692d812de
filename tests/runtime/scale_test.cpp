#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include <kpn.hpp>

#include "runtime/sanitizers.hpp"  // KPN_TSAN, from the compiler's own signal

namespace {
#if defined(KPN_TSAN)
constexpr int kChainLength = 5'000;  // ThreadSanitizer's shadow memory and fiber bookkeeping per process
#else
constexpr int kChainLength = 100'000;
#endif
}  // namespace

TEST_CASE("a chain of many processes passes one message from end to end", "[runtime]") {
  for (const char* scheduler : {"ws-cur", "ws-last"}) {
    CAPTURE(scheduler);
    kpn::Network net;
    // links[i] connects process i to process i + 1.
    std::vector<std::pair<kpn::Writer<int>, kpn::Reader<int>>> links;
    links.reserve(kChainLength - 1);
    for (int i = 0; i + 1 < kChainLength; ++i) links.push_back(kpn::channel<int>(1));
    int received = -1;  // hops counted so far; written by the last process only, read after run()
    net.process("link-0", [tx = std::move(links[0].first)]() mutable { tx.write(1); });
    for (int i = 1; i + 1 < kChainLength; ++i) {
      net.process("link-" + std::to_string(i),
                  [rx = std::move(links[static_cast<std::size_t>(i - 1)].second),
                   tx = std::move(links[static_cast<std::size_t>(i)].first)]() mutable {
                    if (auto v = rx.read()) tx.write(*v + 1);
                  });
    }
    net.process("link-" + std::to_string(kChainLength - 1),
                [rx = std::move(links.back().second), &received]() mutable {
                  if (auto v = rx.read()) received = *v;
                });
    links.clear();
    kpn::RunReport report = kpn::Runtime({.cpus = 2, .scheduler = scheduler}).run(net);
    REQUIRE(received == kChainLength - 1);
    REQUIRE(report.processes == static_cast<std::uint64_t>(kChainLength));
  }
}
