#include "networks/kinds/line_io.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

namespace kpn::line_io {
namespace {

[[noreturn]] void fail(const char* what, const std::string& path, int err) {
  throw std::runtime_error(fmt::format("cannot {} '{}': {}", what, path, std::strerror(err)));
}

void throw_if_stopped(const std::stop_token& stop, const char* what, const std::string& path) {
  if (stop.stop_requested()) throw std::runtime_error(fmt::format("stopped {} '{}': the network stops", what, path));
}

}  // namespace

int open_for_reading(const std::string& path, const std::stop_token& stop) {
  if (path == "-") return STDIN_FILENO;
  for (;;) {
    throw_if_stopped(stop, "opening", path);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno != EINTR) fail("open for reading", path, errno);
  }
}

int open_for_writing(const std::string& path, const std::stop_token& stop) {
  if (path == "-") return STDOUT_FILENO;
  for (;;) {
    throw_if_stopped(stop, "opening", path);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EINTR) fail("open for writing", path, errno);
  }
}

void close_fd(int fd, const std::string& path) {
  if (fd == STDIN_FILENO || fd == STDOUT_FILENO || fd < 0) return;
  // Linux frees the descriptor even when close fails, so it is never retried (close(2)).
  if (::close(fd) != 0 && errno != EINTR) fail("close", path, errno);
}

long read_some(int fd, char* buffer, std::size_t size, int wait_ms, const std::string& path,
               const std::stop_token& stop) {
  if (stop.stop_requested()) return kNoDataYet;
  pollfd p{fd, POLLIN, 0};
  const int ready = ::poll(&p, 1, wait_ms);
  if (ready == 0 || (ready < 0 && errno == EINTR)) return kNoDataYet;
  if (ready < 0) fail("wait for input from", path, errno);
  for (;;) {
    const ssize_t n = ::read(fd, buffer, size);
    if (n >= 0) return static_cast<long>(n);
    if (errno == EINTR) {
      if (stop.stop_requested()) return kNoDataYet;
      continue;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return kNoDataYet;  // a non-blocking stdin
    fail("read", path, errno);
  }
}

void write_all(int fd, std::string_view data, const std::string& path, const std::stop_token& stop) {
  while (!data.empty()) {
    // Looked at before each write, so that a stop that came between the signals and this write (which the
    // signal, sent before the write began, did not interrupt) is seen at the next one's EINTR or here.
    throw_if_stopped(stop, "writing to", path);
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {  // a non-blocking stdout: wait until it drains
        pollfd p{fd, POLLOUT, 0};
        (void)::poll(&p, 1, -1);  // EINTR when stopped: the loop looks at `stop`
        continue;
      }
      fail("write to", path, errno);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace kpn::line_io
