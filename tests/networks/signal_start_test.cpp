// A stop signal that arrives while kpn-run is starting (loading, building, or between installing its
// handler and the start of the run) is not lost: the run that follows is stopped.

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "networks_support.hpp"

TEST_CASE("a SIGINT at any moment of kpn-run's start-up stops the run", "[runner][faults]") {
  const std::string runner = kpn::test::kpn_run_path();
  const std::string config = kpn::test::source_dir() + "/configs/ring.yaml";
  // posix_spawn, not fork and exec: the child runs no code of this test program before the exec (a forked
  // copy would set the signal mask and dispositions through the sanitizers' interceptors, whose deferred
  // signal delivery is the one part of the path that is not kpn-run's own). kpn-run starts with SIGINT
  // unblocked and at its default action, its outputs on /dev/null.
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args{runner, config, "--cpus", "2", "--set", "nodes=2000", "laps=1000000000"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The delays sweep the start-up of a runner that sets up 2,000 processes before running them for hours.
  for (int delay_ms = 0; delay_ms <= 120; delay_ms += 4) {
    CAPTURE(delay_ms);
    pid_t pid = -1;
    REQUIRE(::posix_spawn(&pid, runner.c_str(), &files, &attr, argv.data(), environ) == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGINT);
    int status = 0;
    pid_t done = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (done == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL("the SIGINT was lost: the run went on");
    }
    // Before the handler is installed SIGINT ends the program by its default action; after, kpn-run exits 130.
    const bool stopped = (WIFEXITED(status) && WEXITSTATUS(status) == 130) || (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
    CHECK(stopped);
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&files);
}
