// A two-process network through kpn's public API, as a user's program would write it: a producer writes
// 1..1000, a consumer adds them up. Exits 0 and prints "kpn-consumer: sum=500500 ..." when the run and
// its report say what they must. Built against an installed or embedded kpn by scripts/check_package.sh.

#include <cstdint>
#include <cstdio>
#include <utility>

#include <kpn/kpn.hpp>  // the installed layout; <kpn.hpp> names the same header
#include <kpn.hpp>

int main() {
  constexpr int kCount = 1000;
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(/*capacity=*/16);
  net.process("producer", [tx = std::move(tx)]() mutable {
    for (int i = 1; i <= kCount; ++i) tx.write(i);
  });  // destroying tx at the end closes the channel
  std::int64_t sum = 0;
  net.process("consumer", [rx = std::move(rx), &sum]() mutable {
    while (auto v = rx.read()) sum += *v;
  });
  kpn::Runtime rt({.cpus = 2, .scheduler = "ws-last"});
  kpn::RunReport report = rt.run(net);

  const std::int64_t expected = std::int64_t{kCount} * (kCount + 1) / 2;
  std::printf("kpn-consumer: sum=%lld processes=%llu messages=%llu\n", static_cast<long long>(sum),
              static_cast<unsigned long long>(report.processes), static_cast<unsigned long long>(report.messages));
  if (sum != expected || report.processes != 2 || report.messages != kCount) {
    std::fprintf(stderr, "kpn-consumer: expected sum=%lld processes=2 messages=%d\n",
                 static_cast<long long>(expected), kCount);
    return 1;
  }
  return 0;
}
