// A stop signal that arrives while kpn-run is starting (loading, building, or between installing its
// handler and the start of the run) is not lost: the run that follows is stopped.

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "networks_support.hpp"

TEST_CASE("a SIGINT at any moment of kpn-run's start-up stops the run", "[runner][faults]") {
  const std::string runner = kpn::test::kpn_run_path();
  const std::string config = kpn::test::source_dir() + "/configs/ring.yaml";
  // The delays sweep the start-up of a runner that sets up 2,000 processes before running them for hours.
  for (int delay_ms = 0; delay_ms <= 120; delay_ms += 4) {
    CAPTURE(delay_ms);
    // SIGINT is blocked across fork() so that it cannot reach the child while it is still a copy of this
    // test program (whose own handler would report it); the child unblocks it with the default action.
    sigset_t block, saved;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    ::sigprocmask(SIG_BLOCK, &block, &saved);
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
      std::signal(SIGINT, SIG_DFL);
      ::sigprocmask(SIG_SETMASK, &saved, nullptr);
      ::execl(runner.c_str(), runner.c_str(), config.c_str(), "--cpus", "2", "--set", "nodes=2000", "laps=1000000000",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::sigprocmask(SIG_SETMASK, &saved, nullptr);
    REQUIRE(pid >= 0);
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
}
