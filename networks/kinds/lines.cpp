// Built-in kinds for text: lines.read (a file, a pipe or stdin to a stream of lines), lines.write (the
// reverse) and lines.split (deals lines over several outputs). The I/O runs in kpn::blocking calls, a
// chunk of up to kChunkBytes per call, so that a worker never waits for the disk or a pipe and a pool
// round trip is paid per chunk, not per line.

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "networks/kinds.hpp"
#include "networks/kinds/fan_out.hpp"
#include "networks/kinds/line_io.hpp"
#include "runtime/blocking_call.hpp"

namespace kpn {
namespace {

// Bytes per read and per write call: large enough that the pool round trip (tens of microseconds,
// docs/api.md) is small beside the copy, small enough that the first lines flow on while the rest is read.
constexpr std::size_t kChunkBytes = 64 * 1024;
// How long one read call waits for a pipe or terminal with no data before it goes back to its process.
// The calls are interruptible (blocking_call.hpp): a stopping network ends a wait or a write at once, so
// that a writer blocked on a pipe nobody drains does not keep the run from ending.
constexpr int kReadWaitMs = 100;

const std::string& checked_path(KindContext& ctx) {
  const std::string& path = ctx.string_arg("path");
  if (path.empty()) throw std::invalid_argument("path must not be empty (a file name, or - for the standard stream)");
  return path;
}

// Closes a descriptor when the process ends early (a broken output, an unwinding network).
struct FdGuard {
  int fd;
  const std::string& path;
  ~FdGuard() {
    if (fd >= 0) {
      try {
        line_io::close_fd(fd, path);
      } catch (...) {  // ending anyway; the error that ended the process is the one to report
      }
    }
  }
};

KPN_REGISTER_KIND(lines_read, {
    .name = "lines.read",
    .description = "reads a file, a named pipe or stdin and writes one string per line (without its newline; a "
                   "last line without one too), then closes its output",
    .ports = {out_port("out", "string", "the lines")},
    .args = {arg_required("path", ArgType::String, "the file to read, or - for stdin")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [out = ctx.output<std::string>("out"), path = checked_path(ctx)]() mutable {
        FdGuard fd{kpn::blocking([&](std::stop_token stop) { return line_io::open_for_reading(path, stop); }), path};
        std::vector<char> buffer(kChunkBytes);
        std::string line;  // the line read so far; it may span chunks
        for (;;) {
          const long n = kpn::blocking([&](std::stop_token stop) {
            return line_io::read_some(fd.fd, buffer.data(), buffer.size(), kReadWaitMs, path, stop);
          });
          if (n == line_io::kNoDataYet) continue;
          if (n == 0) break;
          const char* p = buffer.data();
          const char* end = p + n;
          while (p != end) {
            const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
            if (nl == nullptr) {
              line.append(p, end);
              break;
            }
            line.append(p, nl);
            out.write(std::move(line));
            line.clear();
            p = nl + 1;
          }
        }
        if (!line.empty()) out.write(std::move(line));
        const int done = fd.fd;
        fd.fd = -1;
        kpn::blocking([&] { line_io::close_fd(done, path); });
      };
    }});

KPN_REGISTER_KIND(lines_write, {
    .name = "lines.write",
    .description = "writes every string it reads as one line to a file (created or truncated) or stdout, until "
                   "end of stream",
    .ports = {in_port("in", "string", "the lines")},
    .args = {arg_required("path", ArgType::String, "the file to write, or - for stdout")},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [in = ctx.input<std::string>("in"), path = checked_path(ctx)]() mutable {
        FdGuard fd{kpn::blocking([&](std::stop_token stop) { return line_io::open_for_writing(path, stop); }), path};
        std::string pending;
        pending.reserve(kChunkBytes + 256);
        auto flush = [&] {
          kpn::blocking([&](std::stop_token stop) { line_io::write_all(fd.fd, pending, path, stop); });
          pending.clear();
        };
        while (auto v = in.read()) {
          pending += *v;
          pending += '\n';
          if (pending.size() >= kChunkBytes) flush();
        }
        if (!pending.empty()) flush();
        const int done = fd.fd;
        fd.fd = -1;
        kpn::blocking([&] { line_io::close_fd(done, path); });
      };
    }});

KPN_REGISTER_KIND(lines_split, {
    .name = "lines.split",
    .description = "deals its lines round-robin over its outputs (line i to output i mod n); the share of an output "
                   "whose reader has gone is dropped, the others' shares do not change",
    .ports = {in_port("in", "string"), out_array("out", "string")},
    .args = {},
    .factory = [](KindContext& ctx) -> UniqueFunction<void()> {
      return [in = ctx.input<std::string>("in"), outs = FanOut<std::string>::of(ctx, "out")]() mutable {
        std::size_t next = 0;
        while (!outs.done()) {
          auto v = in.read();
          if (!v) return;
          outs.write(next, std::move(*v));
          next = (next + 1) % outs.size();
        }
      };
    }});

}  // namespace
}  // namespace kpn
