#pragma once
// The kernel I/O behind the line kinds (lines.cpp): each function is one blocking step, meant to run inside
// kpn::blocking, and throws std::runtime_error naming the path and the system's reason.

#include <cstddef>
#include <string>
#include <string_view>

namespace kpn::line_io {

// "-" is the standard input (resp. output); anything else a path: a file, a named pipe (whose open waits
// for the other end), a device.
int open_for_reading(const std::string& path);
int open_for_writing(const std::string& path);
// Closes `fd` unless it is a standard stream; a failed close of a written file is an error (data lost).
void close_fd(int fd, const std::string& path);

// Reads at most `size` bytes. Waits at most `wait_ms` for data first (so that a reader of an idle pipe or
// terminal goes back to its process now and then, and sees the network stop): returns
// the bytes read, 0 at end of input, or kNoDataYet if nothing came within `wait_ms`.
inline constexpr long kNoDataYet = -1;
long read_some(int fd, char* buffer, std::size_t size, int wait_ms, const std::string& path);

// Writes all of `data` (restarting after short writes and EINTR).
void write_all(int fd, std::string_view data, const std::string& path);

}  // namespace kpn::line_io
