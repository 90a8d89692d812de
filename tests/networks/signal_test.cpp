#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "networks_support.hpp"
#include "runtime/config.hpp"

namespace {

struct Stopped {
  int exit_code = -1;
  std::string err;
  std::string json;
};

// Starts kpn-run on a ring that would run for hours, sends `sig` once it is running, and collects what
// it says.
Stopped run_and_signal(int sig) {
  const auto err_path = kpn::test::scratch_file("signal-stderr.txt");
  const auto json_path = kpn::test::scratch_file("signal-stats.json");
  const std::string runner = kpn::test::kpn_run_path();
  const std::string config = kpn::test::source_dir() + "/configs/ring.yaml";
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDERR_FILENO);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::execl(runner.c_str(), runner.c_str(), config.c_str(), "--set", "laps=1000000000", "--stats-json",
            json_path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Long enough for the runner (even under a sanitizer) to be inside the run with its handler installed.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(pid, sig);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  Stopped s;
  if (WIFEXITED(status)) s.exit_code = WEXITSTATUS(status);
  s.err = kpn::test::read_text(err_path);
  s.json = kpn::test::read_text(json_path);
  return s;
}

}  // namespace

TEST_CASE("SIGINT stops kpn-run cleanly with exit code 130 and the report so far", "[runner][faults]") {
  const Stopped s = run_and_signal(SIGINT);
  CHECK(s.exit_code == 130);
  CHECK_THAT(s.err, Catch::Matchers::Contains("kpn-run: interrupted by SIGINT"));
  CHECK_THAT(s.err, Catch::Matchers::Contains(std::string(kpn::config::kDefaultScheduler) + " on"));  // the partial run's summary
  CHECK_THAT(s.json, Catch::Matchers::Contains("\"status\":\"interrupted\""));
}

TEST_CASE("SIGTERM stops kpn-run cleanly with exit code 143", "[runner][faults]") {
  const Stopped s = run_and_signal(SIGTERM);
  CHECK(s.exit_code == 143);
  CHECK_THAT(s.err, Catch::Matchers::Contains("kpn-run: interrupted by SIGTERM"));
}
