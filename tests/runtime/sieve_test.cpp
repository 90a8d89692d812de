#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

namespace {

// About 5e7 messages go through the full sieve; a sanitizer would take minutes over it.
constexpr int kPrimes = kpn::test::full_or_sanitized(10000, 1000);
constexpr int kLastPrime = kpn::test::full_or_sanitized(104729, 7919);  // the 10,000th or 1,000th prime
constexpr std::size_t kCapacity = 64;

// One stage of the sieve. Its first number is a prime: it reports it, then starts the next stage (handing
// it the primes channel) and passes on every later number that the prime does not divide.
void filter(int stage, kpn::Reader<int> in, kpn::Writer<int> primes) {
  auto first = in.read();
  if (!first) return;  // end of the numbers: dropping `primes` ends the collector
  const int p = *first;
  primes.write(p);
  auto [tx, rx] = kpn::channel<int>(kCapacity);
  kpn::spawn("filter-" + std::to_string(stage + 1),
             [stage, rx = std::move(rx), primes = std::move(primes)]() mutable {
               filter(stage + 1, std::move(rx), std::move(primes));
             });
  while (auto v = in.read()) {
    if (*v % p != 0) tx.write(*v);
  }
}

}  // namespace

TEST_CASE("the sieve of Eratosthenes grows a chain of spawned filters and finds the first 10,000 primes",
          "[runtime]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    kpn::Network net;
    auto [numbers_tx, numbers_rx] = net.channel<int>(kCapacity, "numbers");
    auto [primes_tx, primes_rx] = net.channel<int>(kCapacity, "primes");
    std::vector<int> primes;  // written by the collector only, read after run()
    net.process("generator", [tx = std::move(numbers_tx)]() mutable {
      for (int n = 2; n <= kLastPrime; ++n) tx.write(n);
    });
    net.process("filter-1", [rx = std::move(numbers_rx), tx = std::move(primes_tx)]() mutable {
      filter(1, std::move(rx), std::move(tx));
    });
    net.process("collector", [rx = std::move(primes_rx), &primes]() mutable {
      while (auto p = rx.read()) primes.push_back(*p);
    });
    kpn::RunReport report = kpn::Runtime({.cpus = cfg.cpus, .scheduler = cfg.scheduler}).run(net);
    REQUIRE(primes.size() == kPrimes);
    REQUIRE(primes.front() == 2);
    REQUIRE(primes.back() == kLastPrime);
    // generator, collector, one filter per prime and the last filter, which sees only the end of stream.
    REQUIRE(report.processes == kPrimes + 3);
  }
}
