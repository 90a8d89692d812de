#pragma once
// A pipe whose read end nobody reads, and a process whose interruptible call writes into it: the blocking
// call that never returns by itself, for the tests of interruptible calls (the network's stop, a process's
// cancellation).

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <stop_token>
#include <thread>
#include <vector>

#include <poll.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <kpn.hpp>

#include "runtime/tracked.hpp"

namespace kpn::test {

// A write of more than its buffer blocks its thread until someone drains it (drain) or a signal
// interrupts it.
struct UndrainedPipe {
  int fds[2] = {-1, -1};
  UndrainedPipe() { REQUIRE(::pipe(fds) == 0); }
  ~UndrainedPipe() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  UndrainedPipe(const UndrainedPipe&) = delete;
  UndrainedPipe& operator=(const UndrainedPipe&) = delete;
};

// A test's way out where the interruption it checks for does not come: after `patience`, a thread reads
// the pipe until this object goes, so that a stuck write completes (the test then fails on what it checks,
// instead of hanging).
class DrainAfter {
 public:
  DrainAfter(const UndrainedPipe& pipe, std::chrono::milliseconds patience)
      : thread_([fd = pipe.fds[0], patience, this] {
          const auto until = std::chrono::steady_clock::now() + patience;
          while (!done_.load() && std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          char buffer[65536];
          while (!done_.load()) {
            pollfd readable{fd, POLLIN, 0};
            if (::poll(&readable, 1, 10) > 0) (void)!::read(fd, buffer, sizeof buffer);
          }
        }) {}
  ~DrainAfter() {
    done_.store(true);
    thread_.join();
  }
  DrainAfter(const DrainAfter&) = delete;
  DrainAfter& operator=(const DrainAfter&) = delete;

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Writes `bytes` to `fd`, giving up when an interrupted write finds `stop` requested; true if it gave up.
inline bool write_until_stopped(int fd, std::size_t bytes, const std::stop_token& stop) {
  const std::vector<char> data(bytes, 'x');
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::write(fd, data.data() + done, bytes - done);
    if (n > 0) done += static_cast<std::size_t>(n);
    if (n < 0 && errno != EINTR) return false;
    if (stop.stop_requested()) return true;
  }
  return false;
}

// A process "writer" whose interruptible call writes 1 MiB to `pipe`, blocking in write(2): `in_call` once
// it is in the call, `gave_up` if it saw the stop.
inline void add_stuck_writer(kpn::Network& net, Census& census, UndrainedPipe& pipe, std::atomic<bool>& in_call,
                             std::atomic<bool>& gave_up) {
  // The caller's objects by address: they outlive the run, this function's reference parameters do not.
  net.process("writer", [fd = pipe.fds[1], in = &in_call, out = &gave_up, probe = Tracked(census)] {
    kpn::blocking([&](std::stop_token stop) {
      in->store(true);
      out->store(write_until_stopped(fd, 1 << 20, stop));
    });
  });
}

}  // namespace kpn::test
