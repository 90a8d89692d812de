// The line kinds through build/bin/kpn-run: lines.read from a file, stdin and a named pipe, lines.write to a
// file, line boundaries across the kinds' I/O chunks, the errors of a path that cannot be opened, and SIGINT
// while their I/O is blocked (their calls are interruptible).

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <sys/stat.h>
#include <sys/wait.h>

#include <fmt/format.h>

#include "networks_support.hpp"

using Catch::Matchers::Contains;
using kpn::test::kpn_run;
using kpn::test::kpn_run_path;
using kpn::test::quoted_path;
using kpn::test::read_text;
using kpn::test::scratch_file;
using kpn::test::write_scratch;

namespace {

// lines.read -> lines.write: a copy, line by line.
const char* kCopy = R"(network: copy
params: { input: "-", output: "-" }
processes:
  read: { kind: lines.read, args: { path: $input } }
  write: { kind: lines.write, args: { path: $output } }
channels:
  - { from: read.out, to: write.in, capacity: 4 }
)";

// Lines of many lengths, some empty, some longer than a chunk of the kinds' I/O (64 KiB), about 400 KB.
std::string varied_text() {
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += std::string(static_cast<std::size_t>((i * 37) % 251), static_cast<char>('a' + i % 26));
    text += '\n';
    if (i % 500 == 0) text += "\n" + std::string(70'000 + i, 'z') + "\n";
  }
  return text;
}

// Runs a shell command line, returns its exit status (-1 if it did not exit).
int shell(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("lines.read and lines.write copy a file line by line across their I/O chunks", "[runner][blocking]") {
  const std::string text = varied_text();
  const auto net = write_scratch("copy.yaml", kCopy);
  const auto in = write_scratch("in.txt", text);
  const auto out = scratch_file("out.txt");
  for (unsigned cpus : {1u, 2u}) {
    CAPTURE(cpus);
    const auto r = kpn_run(fmt::format("{} --set input={} --set output={} --cpus {} -q", quoted_path(net), quoted_path(in),
                                       quoted_path(out), cpus));
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(read_text(out) == text);
  }
}

TEST_CASE("lines.read ends a last line without a newline like any other", "[runner][blocking]") {
  const auto net = write_scratch("copy.yaml", kCopy);
  const auto in = write_scratch("in.txt", "one\ntwo\n\nlast");
  const auto out = scratch_file("out.txt");
  const auto r = kpn_run(fmt::format("{} --set input={} --set output={} -q", quoted_path(net), quoted_path(in), quoted_path(out)));
  CHECK(r.exit_code == 0);
  CHECK(read_text(out) == "one\ntwo\n\nlast\n");
}

TEST_CASE("lines.read reads the standard input and lines.write writes the standard output with path -", "[runner][blocking]") {
  const auto net = write_scratch("copy.yaml", kCopy);
  const auto in = write_scratch("in.txt", varied_text());
  const auto out = scratch_file("out.txt");
  const int code = shell(fmt::format("'{}' {} -q < {} > {}", kpn_run_path(), quoted_path(net), quoted_path(in), quoted_path(out)));
  CHECK(code == 0);
  CHECK(read_text(out) == varied_text());
}

TEST_CASE("lines.read reads a named pipe until its writer closes it", "[runner][blocking]") {
  const auto net = write_scratch("copy.yaml", kCopy);
  const auto in = write_scratch("in.txt", varied_text());
  const auto fifo = scratch_file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto out = scratch_file("out.txt");
  // The writer starts after kpn-run, in a subshell: lines.read's open waits for it in a blocking call. The
  // writer gives up after 30 s, so that a kpn-run that never opens the pipe cannot leave it waiting forever.
  const std::string writer =
      fmt::format("(sleep 0.1; timeout 30 sh -c 'cat \"$0\" > \"$1\"' {} {}) &", quoted_path(in), quoted_path(fifo));
  const int code = shell(fmt::format("{} '{}' {} --set input={} --set output={} -q; s=$?; wait; exit $s", writer, kpn_run_path(),
                                     quoted_path(net), quoted_path(fifo), quoted_path(out)));
  CHECK(code == 0);
  CHECK(read_text(out) == varied_text());
  std::filesystem::remove(fifo);
}

namespace {

// kpn-run copying `input` to `output`, sent SIGINT once its handler is installed (its SigCgt in
// /proc/PID/status has SIGINT's bit: a SIGINT before that would kill it without a summary) and `ready` (a
// shell condition) holds, then half a second more. Its exit status, or 137 if it was still running 30 s
// later (killed: the hang this guards against; a holder of the pipe outlives that). `before` runs first in the same shell, and `after` once
// kpn-run has ended. The summary goes to `out`.
int copy_interrupted(const std::filesystem::path& input, const std::filesystem::path& output,
                     const std::filesystem::path& out, const std::string& before = "", const std::string& ready = "true",
                     const std::string& after = "") {
  const auto net = write_scratch("copy.yaml", kCopy);
  return shell(fmt::format(
      "{} '{}' {} --set input={} --set output={} >{} 2>&1 </dev/null & k=$!; "
      "i=0; until [ $(( 0x$(awk '/^SigCgt/ {{print $2}}' /proc/$k/status 2>/dev/null || echo 0) & 2 )) -ne 0 ] && {}; do "
      "i=$((i+1)); [ $i -gt 3000 ] && break; sleep 0.01; done; sleep 0.5; kill -INT $k; "
      "i=0; while kill -0 $k 2>/dev/null && [ $i -lt 300 ]; do i=$((i+1)); sleep 0.1; done; "
      "if kill -0 $k 2>/dev/null; then kill -KILL $k; wait $k; s=137; else wait $k; s=$?; fi; {} exit $s",
      before, kpn_run_path(), quoted_path(net), quoted_path(input), quoted_path(output), quoted_path(out), ready, after));
}

}  // namespace

TEST_CASE("SIGINT ends kpn-run whose lines.write is blocked on a named pipe that nobody drains", "[runner][blocking]") {
  const auto in = write_scratch("in.txt", varied_text());  // 400 KB: more than a pipe holds
  const auto fifo = scratch_file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto flag = scratch_file("first-bytes");
  const auto out = scratch_file("summary.txt");
  // The holder opens the pipe for reading, reads the first bytes (kpn-run writes: the flag file fills) and
  // never reads again: lines.write fills the pipe and blocks in write(2).
  const std::string holder = fmt::format("(exec 3<{}; head -c 1 <&3 >{}; exec sleep 300) >/dev/null 2>&1 </dev/null & h=$!;",
                                         quoted_path(fifo), quoted_path(flag));
  const int code = copy_interrupted(in, fifo, out, holder, fmt::format("[ -s {} ]", quoted_path(flag)),
                                    "kill $h 2>/dev/null; wait;");
  CHECK(code == 130);
  CHECK_THAT(read_text(out), Contains("interrupted by SIGINT") && Contains("blocking calls"));
  CHECK(read_text(flag) == varied_text().substr(0, 1));  // what came through is how the input begins
  std::filesystem::remove(fifo);
}

TEST_CASE("SIGINT ends kpn-run whose lines.write waits to open a named pipe that no reader opens", "[runner][blocking]") {
  const auto in = write_scratch("in.txt", "a\nb\n");
  const auto fifo = scratch_file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto out = scratch_file("summary.txt");
  CHECK(copy_interrupted(in, fifo, out) == 130);
  CHECK_THAT(read_text(out), Contains("interrupted by SIGINT"));
  std::filesystem::remove(fifo);
}

TEST_CASE("lines.read of a missing file fails the run naming the process and the path", "[runner][blocking]") {
  const auto net = write_scratch("copy.yaml", kCopy);
  const auto missing = scratch_file("no-such-file.txt");
  const auto r = kpn_run(fmt::format("{} --set input={} -q", quoted_path(net), quoted_path(missing)));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("process 'read' failed") && Contains(missing.string()) && Contains("No such file or directory"));
}

TEST_CASE("lines.write to a path that cannot be created fails the run naming the process and the path", "[runner][blocking]") {
  const auto net = write_scratch("copy.yaml", kCopy);
  const auto in = write_scratch("in.txt", "a\nb\n");
  const auto bad = scratch_file("no-such-dir") / "out.txt";
  const auto r = kpn_run(fmt::format("{} --set input={} --set output={} -q", quoted_path(net), quoted_path(in), quoted_path(bad)));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("process 'write' failed") && Contains(bad.string()) && Contains("cannot open for writing"));
}

TEST_CASE("the line kinds reject an empty path when the network is built", "[runner][blocking]") {
  const auto net = write_scratch("copy.yaml", kCopy);
  const auto r = kpn_run(fmt::format("{} --set input= --validate", quoted_path(net)));
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Contains("path must not be empty"));
}
