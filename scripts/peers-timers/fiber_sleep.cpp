// Timer accuracy in Boost.Fiber, the workload of kpn-bench --only timers: one fiber calls
// boost::this_fiber::sleep_for(1 ms) 10,000 times; lateness = wake-up - (call + 1 ms). Prints one JSON line:
// median, p99 and max in microseconds. On one thread it uses Boost.Fiber's default algorithm, round_robin
// (its idle thread waits on a condition variable until the next timer); the peers harness's work_stealing
// is used only for T > 1: on one thread, Boost 1.74's work_stealing never woke the sleeper in 60 s (its
// idle loop spun at 70 % CPU), and on two it busy-polls (median lateness 0.5 us, p99 22 ms, CPU-bound).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <boost/fiber/algo/work_stealing.hpp>
#include <boost/fiber/all.hpp>

namespace bf = boost::fibers;

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  std::vector<double> late;
  late.reserve(n);
  bf::mutex m;
  bf::condition_variable_any cv;
  bool done = false;
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) {
    helpers.emplace_back([&] {
      bf::use_scheduling_algorithm<bf::algo::work_stealing>(threads);
      std::unique_lock<bf::mutex> lk(m);
      cv.wait(lk, [&] { return done; });
    });
  }
  if (threads > 1) bf::use_scheduling_algorithm<bf::algo::work_stealing>(threads);
  bf::fiber f([&] {
    for (int i = 0; i < n; ++i) {
      const auto due = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
      boost::this_fiber::sleep_for(std::chrono::milliseconds(1));
      late.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - due).count());
    }
  });
  f.join();
  {
    std::unique_lock<bf::mutex> lk(m);
    done = true;
  }
  cv.notify_all();
  for (auto& h : helpers) h.join();
  std::sort(late.begin(), late.end());
  auto pick = [&](double p) { return late[static_cast<std::size_t>(p * (late.size() - 1) + 0.5)]; };
  std::printf("{\"peer\":\"fiber\",\"workload\":\"sleep\",\"n\":%d,\"threads\":%d,\"lateness_median_us\":%.1f,"
              "\"lateness_p99_us\":%.1f,\"lateness_max_us\":%.1f}\n",
              n, threads, pick(0.5), pick(0.99), late.back());
}
