// The scatter-gather network of the Nornir paper (Figure 2), built with the C++ API: a master sends one message
// to each of n workers per round and waits for every reply before the next round; each worker spends
// w microseconds of CPU per message. Prints the run report; checks that every reply came back.
//
//   build/bin/scatter-gather-example [--workers N] [--rounds M] [--work-us W] [--cpus C] [--scheduler S]

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <kpn.hpp>

namespace {

// Spends about `us` microseconds of CPU with dependent 64-bit divisions (the paper's work unit).
std::uint64_t spin_work(double us, std::uint64_t seed) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  volatile std::uint64_t divisor = 7;
  std::uint64_t x = seed | 1;
  do {
    for (int i = 0; i < 64; ++i) x = (x * 6364136223846793005ull + 1442695040888963407ull) / divisor + i;
  } while (std::chrono::steady_clock::now() < end);
  return x;
}

struct Args {
  int workers = 50;
  int rounds = 200;
  double work_us = 100;
  unsigned cpus = 0;
  std::string scheduler = "ws-last";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--workers") a.workers = std::stoi(value());
    else if (k == "--rounds") a.rounds = std::stoi(value());
    else if (k == "--work-us") a.work_us = std::stod(value());
    else if (k == "--cpus") a.cpus = static_cast<unsigned>(std::stoul(value()));
    else if (k == "--scheduler") a.scheduler = value();
    else {
      std::fprintf(stderr,
                   "usage: %s [--workers N] [--rounds M] [--work-us W] [--cpus C] [--scheduler ws-cur|ws-last]\n",
                   argv[0]);
      std::exit(k == "--help" || k == "-h" ? 0 : 2);
    }
  }
  if (a.workers < 1 || a.rounds < 1 || a.work_us < 0) {
    std::fprintf(stderr, "workers and rounds must be >= 1, work-us >= 0\n");
    std::exit(2);
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  kpn::Network net;
  std::vector<kpn::Writer<int>> to_workers;
  std::vector<kpn::Reader<int>> from_workers;
  for (int i = 0; i < args.workers; ++i) {
    auto [down_tx, down_rx] = net.channel<int>(1, "master->worker[" + std::to_string(i) + "]");
    auto [up_tx, up_rx] = net.channel<int>(1, "worker[" + std::to_string(i) + "]->master");
    to_workers.push_back(std::move(down_tx));
    from_workers.push_back(std::move(up_rx));
    net.process("worker[" + std::to_string(i) + "]",
                [in = std::move(down_rx), out = std::move(up_tx), w = args.work_us]() mutable {
                  while (auto round = in.read()) {
                    spin_work(w, static_cast<std::uint64_t>(*round));
                    out.write(*round);
                  }
                });
  }
  long long replies = 0;
  net.process("master", [&replies, out = std::move(to_workers), in = std::move(from_workers),
                         rounds = args.rounds]() mutable {
    for (int r = 0; r < rounds; ++r) {
      for (auto& tx : out) tx.write(r);
      for (auto& rx : in) {
        if (rx.read() != r) throw std::runtime_error("reply from the wrong round");
        ++replies;
      }
    }
    // Destroying `out` when the master ends closes the workers' inputs, so they end too.
  });

  try {
    kpn::Runtime rt({.cpus = args.cpus, .scheduler = args.scheduler});
    kpn::RunReport report = rt.run(net);
    std::fputs(report.summary().c_str(), stdout);
    const long long expected = static_cast<long long>(args.workers) * args.rounds;
    std::printf("replies: %lld of %lld\n", replies, expected);
    return replies == expected ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
