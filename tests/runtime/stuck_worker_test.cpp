#include <catch2/catch.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <stdio_ext.h>
#include <unistd.h>

#include <kpn.hpp>

#include "runtime/tracked.hpp"
#include "runtime/undrained_pipe.hpp"
#include "support.hpp"

// A stopping run whose process is blocked in a system call on its own worker (not in kpn::blocking): the
// run signals that worker until the call gives up, and the run ends (runtime/worker_exits.hpp).

using namespace std::chrono_literals;
using kpn::test::DrainAfter;
using kpn::test::UndrainedPipe;

namespace {

// Writes 1 MiB to `fd` from the worker's own thread; returns at the first write that an interrupt ends
// with nothing written (EINTR), true then. A write the way out drains completes, and it returns false.
bool write_until_interrupted(int fd) {
  const std::vector<char> data(1 << 20, 'x');
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n > 0) done += static_cast<std::size_t>(n);
    if (n < 0) return errno == EINTR;
  }
  return false;
}

// Interrupts `rt` from another thread once `flag` is set and a few milliseconds more have passed (most
// often the process is inside write(2) by then; a stop before it is seen as well).
std::thread interrupt_when(kpn::Runtime& rt, const std::atomic<bool>& flag) {
  return std::thread([&rt, &flag] {
    while (!flag.load()) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(5ms);
    rt.interrupt();
  });
}

// One test's pipe nobody drains (with its 30 s way out), and what its process "printer" saw.
struct StuckPrinter {
  kpn::test::Census census;
  UndrainedPipe pipe;
  const DrainAfter way_out{pipe, 30s};
  std::atomic<bool> writing{false};           // the printer is about to write
  std::atomic<bool> interrupted_call{false};  // its write ended with EINTR
  std::atomic<bool> went_on{false};           // it got past its next scheduling point

  // Adds "printer": writes into the pipe on its worker's own thread, then yields (its next scheduling
  // point, where the stop unwinds it).
  void add_to(kpn::Network& net) {
    net.process("printer", [this, probe = kpn::test::Tracked(census)] {
      writing.store(true);
      interrupted_call.store(write_until_interrupted(pipe.fds[1]));
      kpn::yield();
      went_on.store(true);
    });
  }
};

}  // namespace

TEST_CASE("an interrupt ends a run whose process is blocked in a write on its worker", "[runtime][stop]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    StuckPrinter t;
    kpn::Network net;
    t.add_to(net);
    kpn::Runtime rt({.cpus = cfg.cpus, .scheduler = cfg.scheduler});
    std::thread stopper = interrupt_when(rt, t.writing);
    CHECK_THROWS_AS(rt.run(net), kpn::Interrupted);
    stopper.join();
    CHECK(t.interrupted_call.load());
    CHECK_FALSE(t.went_on.load());
    CHECK(t.census.alive() == 0);
  }
}

TEST_CASE("a process that fails ends a run whose other process is blocked in a write on its worker",
          "[runtime][stop]") {
  // Two workers at least: the failing process runs while the other's worker is held in write(2).
  for (unsigned cpus : {2u, 4u}) {
    CAPTURE(cpus);
    StuckPrinter t;
    kpn::Network net;
    t.add_to(net);
    net.process("failing", [&t, probe = kpn::test::Tracked(t.census)] {
      while (!t.writing.load()) kpn::yield();
      throw std::runtime_error("boom");
    });
    try {
      kpn::Runtime({.cpus = cpus}).run(net);
      FAIL("the failure was not reported");
    } catch (const kpn::ProcessFailed& e) {
      CHECK(e.process() == "failing");
    }
    CHECK(t.interrupted_call.load());
    CHECK(t.census.alive() == 0);
  }
}

TEST_CASE("an interrupt stays the run's end when the process it interrupts throws on the EINTR",
          "[runtime][stop]") {
  for (unsigned cpus : {1u, 2u}) {
    CAPTURE(cpus);
    StuckPrinter t;  // its fields; this printer is its own
    kpn::Network net;
    net.process("printer", [&t, probe = kpn::test::Tracked(t.census)] {
      t.writing.store(true);
      if (write_until_interrupted(t.pipe.fds[1])) throw std::system_error(EINTR, std::generic_category(), "write");
    });
    kpn::Runtime rt({.cpus = cpus});
    std::thread stopper = interrupt_when(rt, t.writing);
    CHECK_THROWS_AS(rt.run(net), kpn::Interrupted);
    stopper.join();
    CHECK(t.census.alive() == 0);
  }
}

TEST_CASE("an interrupt ends a run whose process prints with std::cout to a stdout nobody drains",
          "[runtime][stop]") {
  UndrainedPipe pipe;
  const DrainAfter way_out(pipe, 30s);
  std::fflush(stdout);
  std::cout.flush();
  const int saved_stdout = ::dup(STDOUT_FILENO);
  REQUIRE(saved_stdout >= 0);
  REQUIRE(::dup2(pipe.fds[1], STDOUT_FILENO) == STDOUT_FILENO);
  std::atomic<bool> printing{false};
  std::atomic<bool> stream_failed{false};
  kpn::Network net;
  net.process("printer", [&] {
    printing.store(true);
    const std::string line(4000, 'x');
    for (int i = 0; i < 1000 && std::cout; ++i) std::cout << line << std::endl;
    stream_failed.store(!std::cout);
    kpn::yield();
  });
  kpn::Runtime rt({.cpus = 2});
  std::thread stopper = interrupt_when(rt, printing);
  bool interrupted = false;
  try {
    rt.run(net);
  } catch (const kpn::Interrupted&) {
    interrupted = true;
  }
  stopper.join();
  // What the stream kept is dropped, and stdout is the test's again, in a good state.
  __fpurge(stdout);
  std::clearerr(stdout);
  ::dup2(saved_stdout, STDOUT_FILENO);
  ::close(saved_stdout);
  std::cout.clear();
  CHECK(interrupted);
  CHECK(stream_failed.load());
}
