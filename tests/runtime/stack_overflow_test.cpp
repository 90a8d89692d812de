#include <catch2/catch.hpp>

#include <csignal>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include <kpn.hpp>

namespace {

[[gnu::noinline]] int recurse(int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  return depth == 0 ? frame[0] : recurse(depth - 1) + frame[0];
}

}  // namespace

TEST_CASE("a process that overflows its stack ends the program with a message naming it", "[runtime][faults]") {
  // The overflow ends the program it happens in, so it happens in a forked child; its stderr comes back
  // through a pipe.
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    kpn::Network net;
    net.process("deep", [] { recurse(1 << 20); }, {.stack_size = 64 * 1024});
    try {
      kpn::Runtime({.cpus = 1}).run(net);
    } catch (...) {
    }
    ::_exit(0);  // not reached if the guard page works
  }
  ::close(pipe_fds[1]);
  std::string err;
  char buf[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGSEGV);
  CHECK_THAT(err, Catch::Matchers::Contains("process 'deep' overflowed its stack of 65536 bytes"));
  CHECK_THAT(err, Catch::Matchers::Contains("stack_size"));
}
