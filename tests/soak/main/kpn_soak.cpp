// kpn-soak: random networks (DAGs, rings, feedback loops that need Parks' rule, early-stopping readers,
// dynamic spawns) checked against a sequential oracle under every registered policy on 1, 2 and 4
// workers. Every failure prints its seed and its network; `kpn-soak --seed S` replays one network. The
// summary ends with each policy's own statistics summed over its runs (which of its mechanisms ran).
//
//   kpn-soak [--count N | --minutes M] [--first-seed S] [--seed S] [--policy NAME ...]
//            [--workers 1,2,4] [--timeout-s T] [--print]
//
// Exit status: 0 when every run matched the oracle, 1 when any failed or hung, 2 on a bad command line.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "soak_check.hpp"
#include "soak_net.hpp"

namespace {

using kpn::soak::u64;

struct Options {
  std::size_t count = 100;
  double minutes = 0;  // > 0: run until this much time has passed, whatever `count` says
  u64 first_seed = 0;
  bool first_seed_given = false;
  bool one_seed = false;
  bool print = false;
  kpn::soak::Matrix matrix;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "kpn-soak: %s\nusage: kpn-soak [--count N | --minutes M] [--first-seed S] [--seed S] "
               "[--policy NAME ...] [--workers 1,2,4] [--timeout-s T] [--print]\n",
               why.c_str());
  std::exit(2);
}

u64 number(const std::string& flag, const char* text) {
  try {
    std::size_t used = 0;
    const u64 v = std::stoull(text, &used, 0);
    if (text[used] != '\0') throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    usage(fmt::format("{} expects a number, got '{}'", flag, text));
  }
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--count") {
      o.count = number(a, value());
    } else if (a == "--minutes") {
      o.minutes = std::atof(value());
      if (o.minutes <= 0) usage("--minutes expects a positive number");
    } else if (a == "--first-seed") {
      o.first_seed = number(a, value());
      o.first_seed_given = true;
    } else if (a == "--seed") {
      o.first_seed = number(a, value());
      o.first_seed_given = o.one_seed = true;
    } else if (a == "--policy") {
      o.matrix.policies.push_back(value());
    } else if (a == "--workers") {
      o.matrix.workers.clear();
      std::string list = value();
      for (std::size_t at = 0; at <= list.size();) {
        std::size_t comma = list.find(',', at);
        if (comma == std::string::npos) comma = list.size();
        const u64 w = number(a, list.substr(at, comma - at).c_str());
        if (w == 0 || w > 64) usage("--workers takes numbers from 1 to 64");
        o.matrix.workers.push_back(static_cast<unsigned>(w));
        at = comma + 1;
      }
    } else if (a == "--timeout-s") {
      o.matrix.timeout = std::chrono::milliseconds(number(a, value()) * 1000);
    } else if (a == "--print") {
      o.print = true;
    } else {
      usage("unknown argument '" + a + "'");
    }
  }
  if (!o.first_seed_given) {
    o.first_seed = static_cast<u64>(std::chrono::system_clock::now().time_since_epoch().count()) % 1'000'000'000;
  }
  if (o.matrix.policies.empty()) o.matrix.policies = kpn::soak::registered_policies();
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  // Every Parks growth would log a warning; they are expected here by the thousand and counted instead.
  // The user's own KPN_LOG_LEVEL wins.
  setenv("KPN_LOG_LEVEL", "error", /*overwrite=*/0);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::string workers;
  for (unsigned w : o.matrix.workers) workers += fmt::format("{}{}", workers.empty() ? "" : ",", w);
  std::string policies;
  for (const auto& p : o.matrix.policies) policies += (policies.empty() ? "" : ",") + p;
  std::printf("kpn-soak: first seed %llu, policies %s, workers %s\n", static_cast<unsigned long long>(o.first_seed),
              policies.c_str(), workers.c_str());
  std::fflush(stdout);

  kpn::soak::NetworkResult total;
  std::size_t networks = 0;
  std::size_t failed_networks = 0;
  double next_progress = 60;
  for (u64 seed = o.first_seed;; ++seed) {
    if (o.one_seed ? networks == 1 : o.minutes > 0 ? elapsed_s() >= o.minutes * 60 : networks >= o.count) break;
    if (o.print) std::printf("%s", kpn::soak::describe(kpn::soak::generate(seed)).c_str());
    const auto r = kpn::soak::check_network(seed, o.matrix);
    ++networks;
    total.add(r);
    if (r.failed_runs != 0) {
      ++failed_networks;
      std::printf("FAILURE (replay: kpn-soak --seed %llu)\n%s", static_cast<unsigned long long>(seed), r.report.c_str());
    }
    if (elapsed_s() >= next_progress) {
      std::printf("  %.0f s: %zu networks, %zu runs, %zu failed runs\n", elapsed_s(), networks, total.runs, total.failed_runs);
      next_progress += 60;
    }
    std::fflush(stdout);
  }
  std::printf(
      "kpn-soak: %zu networks (seeds %llu..%llu), %zu runs (%zu policies x %zu worker counts), %.1f s\n"
      "  messages %llu, sink values %llu, Parks growths %llu, spawned processes %llu, BrokenChannel caught %llu\n"
      "  failed networks %zu, failed runs %zu, hangs %zu, lost values %llu, duplicated values %llu\n",
      networks, static_cast<unsigned long long>(o.first_seed),
      static_cast<unsigned long long>(o.first_seed + (networks == 0 ? 0 : networks - 1)), total.runs,
      o.matrix.policies.size(), o.matrix.workers.size(), elapsed_s(), static_cast<unsigned long long>(total.messages),
      static_cast<unsigned long long>(total.sink_values), static_cast<unsigned long long>(total.deadlocks_resolved),
      static_cast<unsigned long long>(total.spawned), static_cast<unsigned long long>(total.broken_writes), failed_networks, total.failed_runs, total.hangs,
      static_cast<unsigned long long>(total.lost), static_cast<unsigned long long>(total.duplicated));
  if (!total.slowest.empty()) std::printf("  slowest run: %.2f s, %s\n", total.slowest_seconds, total.slowest.c_str());
  // Which of each policy's mechanisms the networks exercised: its own statistics, summed over its runs.
  if (!total.policy_stats.empty()) {
    std::printf("  each policy's statistics summed over its runs (counts; a summed setting or ratio means little):\n");
  }
  for (const auto& [policy, stats] : total.policy_stats) {
    std::string line;
    for (const auto& [name, value] : stats) {
      if (value != 0) line += fmt::format("{}{} {:.0f}", line.empty() ? "" : ", ", name, value);
    }
    std::printf("    %s: %s\n", policy.c_str(), line.empty() ? "(no statistic above 0)" : line.c_str());
  }
  return total.failed_runs == 0 ? 0 : 1;
}
