#pragma once
// The kernel I/O behind the line kinds (lines.cpp): each function is one blocking step, meant to run inside
// kpn::blocking, and throws std::runtime_error naming the path and the system's reason.

#include <cstddef>
#include <stop_token>
#include <string>
#include <string_view>

namespace kpn::line_io {

// "-" is the standard input (resp. output); anything else a path: a file, a named pipe (whose open waits
// for the other end), a device.
// An open interrupted once `stop` is requested throws std::runtime_error (a named pipe whose other end
// never opens, when the network stops).
int open_for_reading(const std::string& path, const std::stop_token& stop = {});
int open_for_writing(const std::string& path, const std::stop_token& stop = {});
// Closes `fd` unless it is a standard stream; a failed close of a written file is an error (data lost).
void close_fd(int fd, const std::string& path);

// Reads at most `size` bytes. Waits at most `wait_ms` for data first (so that a reader of an idle pipe or
// terminal goes back to its process now and then): returns the bytes read, 0 at end of input, or
// kNoDataYet if nothing came within `wait_ms` or `stop` was requested (an interrupted wait returns at once).
inline constexpr long kNoDataYet = -1;
long read_some(int fd, char* buffer, std::size_t size, int wait_ms, const std::string& path,
               const std::stop_token& stop = {});

// Writes all of `data` (restarting after short writes, and after EINTR unless `stop` was requested).
// Throws std::runtime_error, having written a prefix of `data`, once `stop` is requested (a writer blocked
// on a pipe or terminal that nobody drains, when the network stops: blocking_call.hpp).
void write_all(int fd, std::string_view data, const std::string& path, const std::stop_token& stop = {});

}  // namespace kpn::line_io
