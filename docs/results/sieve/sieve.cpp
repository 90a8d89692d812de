// The sieve of tests/runtime/sieve_test.cpp as a program that times one policy: docs/performance-log.md, "The
// sieve on one worker" (session 23). Usage: sieve <policy> <workers> <last number>. Built by hand against
// build/ (the command is in docs/performance-log.md); not part of the CMake build.
#include <kpn.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
constexpr std::size_t kCapacity = 64;
void filter(int stage, kpn::Reader<int> in, kpn::Writer<int> primes) {
  auto first = in.read();
  if (!first) return;
  const int p = *first;
  primes.write(p);
  auto [tx, rx] = kpn::channel<int>(kCapacity);
  kpn::spawn("filter-" + std::to_string(stage + 1), [stage, rx = std::move(rx), primes = std::move(primes)]() mutable {
    filter(stage + 1, std::move(rx), std::move(primes));
  });
  while (auto v = in.read()) if (*v % p != 0) tx.write(*v);
}
int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <policy> <workers> <last number>\n", argv[0]);
    return 2;
  }
  const std::string sched = argv[1];
  const unsigned cpus = std::atoi(argv[2]);
  const int last = std::atoi(argv[3]);
  kpn::Network net;
  auto [ntx, nrx] = net.channel<int>(kCapacity, "numbers");
  auto [ptx, prx] = net.channel<int>(kCapacity, "primes");
  std::size_t count = 0;
  net.process("generator", [tx = std::move(ntx), last]() mutable { for (int n = 2; n <= last; ++n) tx.write(n); });
  net.process("filter-1", [rx = std::move(nrx), tx = std::move(ptx)]() mutable { filter(1, std::move(rx), std::move(tx)); });
  net.process("collector", [rx = std::move(prx), &count]() mutable { while (rx.read()) ++count; });
  auto t = std::chrono::steady_clock::now();
  auto r = kpn::Runtime({.cpus = cpus, .scheduler = sched}).run(net);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  std::printf("%s cpus=%u primes=%zu wall=%.3f s switches=%llu\n", sched.c_str(), cpus, count, s,
              (unsigned long long)r.context_switches);
}
