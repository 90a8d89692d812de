#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

namespace {

// About 4.5e6 messages go through the full sieve (a number passes one filter per smaller prime until one
// divides it: about n^2 / 2 for n primes), 3,000 spawned filters deep, under each of the 33 policy and
// worker configurations. 10,000 primes (5e7 messages) took 93 s of the suite, for the same behaviour. A
// sanitizer runs 500 (1.25e5 messages; 1,000 took 36 s under ThreadSanitizer).
constexpr int kPrimes = kpn::test::full_or_sanitized(3000, 500);
constexpr int kLastPrime = kpn::test::full_or_sanitized(27449, 3571);  // the 3,000th or 500th prime
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

TEST_CASE("the sieve of Eratosthenes grows a chain of spawned filters and finds the first 3,000 primes",
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
