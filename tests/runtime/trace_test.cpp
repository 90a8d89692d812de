#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <kpn.hpp>

#include "support.hpp"

using Catch::Matchers::Contains;

namespace {

namespace fs = std::filesystem;

// In this test process's scratch directory, removed when the process exits.
fs::path scratch(const std::string& name) {
  static const kpn::test::ScratchDir dir("kpn-trace-tests");
  return dir.path / name;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `python3 KPN_SOURCE_DIR/<script> <args>` and returns what it printed (stdout and stderr) and its exit
// status.
struct ScriptResult {
  int status = -1;
  std::string out;
};
ScriptResult run_script(const std::string& script, const std::string& args) {
  const std::string command = "/usr/bin/env python3 '" KPN_SOURCE_DIR "/" + script + "' " + args + " 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  ScriptResult r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) r.out.append(buf, n);
  const int status = ::pclose(pipe);
  REQUIRE(WIFEXITED(status));
  r.status = WEXITSTATUS(status);
  REQUIRE(r.status != 127);  // python3 is part of the setup (scripts/setup.sh)
  return r;
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// Runs scripts/check_trace.py on `trace` (and, with `report`, against the run's totals); returns what it
// printed, "" when every check passed.
std::string check_trace(const fs::path& trace, const kpn::RunReport* report) {
  std::string args = quoted(trace);
  if (report != nullptr) {
    const fs::path stats = fs::path(trace).replace_extension(".stats.json");
    std::ofstream(stats) << report->to_json();
    args += " " + quoted(stats);
  }
  ScriptResult r = run_script("scripts/check_trace.py", args);
  if (r.status != 0 && r.out.empty()) r.out = "check_trace.py failed without a message";
  return r.out;
}

// 1234567 -> "1,234,567", as tools/trace_summary.py prints counts.
std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A pipeline source -> relay x3 -> sink over capacity-1 channels: every message blocks and wakes.
void build_pipeline(kpn::Network& net, int messages) {
  auto [tx, rx] = net.channel<int>(1, "stage0");
  net.process("source", [tx = std::move(tx), messages]() mutable {
    for (int i = 0; i < messages; ++i) tx.write(i);
  });
  kpn::Reader<int> in = std::move(rx);
  for (int s = 1; s <= 3; ++s) {
    auto [next_tx, next_rx] = net.channel<int>(1, "stage" + std::to_string(s));
    net.process("relay" + std::to_string(s), [in = std::move(in), out = std::move(next_tx)]() mutable {
      while (auto v = in.read()) out.write(*v);
    });
    in = std::move(next_rx);
  }
  net.process("sink", [in = std::move(in)]() mutable {
    while (in.read()) {
    }
  });
}

kpn::RuntimeOptions traced(const kpn::test::Config& cfg, const fs::path& file) {
  kpn::RuntimeOptions o{.cpus = cfg.cpus, .scheduler = cfg.scheduler};
  o.trace = file.string();
  return o;
}

}  // namespace

TEST_CASE("a traced run's trace has one run slice per context switch, inside the run, never overlapping on a worker",
          "[runtime][trace]") {
  for (const auto& cfg : kpn::test::all_configs()) {
    CAPTURE(cfg.scheduler, cfg.cpus);
    const fs::path file = scratch("pipeline-" + cfg.scheduler + "-" + std::to_string(cfg.cpus) + ".json");
    kpn::Network net;
    build_pipeline(net, 300);
    kpn::RuntimeOptions options = traced(cfg, file);
    // Room for every slice: under the Nornir paper's policies a process that finds a channel's lock taken
    // yields (busy_wait_mutex.hpp), and with more workers than CPUs, while the holder's thread waits for a
    // CPU, one worker made 50,000 such switches in this 300-message run: more than its share of the default
    // limit (kTraceLimit, split between the workers and the runtime's track). Chunks are allocated as used.
    options.trace_limit = 2'000'000;
    const kpn::RunReport report = kpn::Runtime(options).run(net);
    REQUIRE(report.trace_file == file.string());
    REQUIRE(report.trace_error.empty());
    REQUIRE(report.trace_dropped == 0);
    REQUIRE(report.trace_events > report.context_switches);
    REQUIRE(check_trace(file, &report) == "");
  }
}

TEST_CASE("a trace names each process's slices, the channel it blocked on and the process a wake-up readied",
          "[runtime][trace]") {
  const fs::path file = scratch("names.json");
  kpn::Network net;
  build_pipeline(net, 50);
  kpn::Runtime(traced({"handoff", 1}, file)).run(net);
  const std::string text = read_text(file);
  CHECK_THAT(text, Contains(R"("cat":"run","name":"relay2")"));
  CHECK_THAT(text, Contains(R"("cat":"block","name":"block")"));
  CHECK_THAT(text, Contains(R"("channel":"stage2","wait":"read")"));
  CHECK_THAT(text, Contains(R"("cat":"wake","name":"wake")"));
  CHECK_THAT(text, Contains(R"("process":"sink","channel":"stage3")"));
  CHECK_THAT(text, Contains(R"("ph":"s")") && Contains(R"("ph":"f","bp":"e")"));
  CHECK_THAT(text, Contains(R"("name":"worker 0)"));
}

TEST_CASE("the trace limit bounds a trace and the report counts the events it dropped", "[runtime][trace]") {
  const fs::path file = scratch("limited.json");
  kpn::Network net;
  build_pipeline(net, 2000);
  kpn::RuntimeOptions options = traced({"ws-last", 2}, file);
  options.trace_limit = 90;  // 30 per buffer: two workers and the runtime's track
  const kpn::RunReport report = kpn::Runtime(options).run(net);
  REQUIRE(report.trace_dropped > 0);
  REQUIRE(report.trace_error.empty());
  // What was kept is still a valid trace (recorded events become one or a few JSON events each).
  REQUIRE(report.trace_events < 400);
  REQUIRE(check_trace(file, nullptr) == "");
  CHECK_THAT(read_text(file), Contains(R"("dropped_events":)" + std::to_string(report.trace_dropped)));
}

TEST_CASE("a deadlocked run's trace ends with the deadlock and its message", "[runtime][trace]") {
  const fs::path file = scratch("deadlock.json");
  kpn::Network net;
  auto [a_tx, a_rx] = net.channel<int>(1, "to-left");
  auto [b_tx, b_rx] = net.channel<int>(1, "to-right");
  net.process("left", [rx = std::move(a_rx), tx = std::move(b_tx)]() mutable {
    if (auto v = rx.read()) tx.write(*v);
  });
  net.process("right", [rx = std::move(b_rx), tx = std::move(a_tx)]() mutable {
    if (auto v = rx.read()) tx.write(*v);
  });
  try {
    kpn::Runtime(traced({"handoff", 2}, file)).run(net);
    FAIL("run() returned normally");
  } catch (const kpn::DeadlockError& e) {
    REQUIRE(e.report() != nullptr);
    REQUIRE(e.report()->trace_error.empty());
  }
  const std::string text = read_text(file);
  CHECK_THAT(text, Contains(R"("cat":"deadlock","name":"deadlock")"));
  CHECK_THAT(text, Contains("to-left"));
  REQUIRE(check_trace(file, nullptr) == "");
}

TEST_CASE("a channel grown by Parks' rule appears in the trace with its old and new capacity", "[runtime][trace]") {
  const fs::path file = scratch("growth.json");
  kpn::Network net;
  auto [data_tx, data_rx] = net.channel<int>(1, "data");
  auto [signal_tx, signal_rx] = net.channel<int>(1, "signal");
  net.process("producer", [data = std::move(data_tx), signal = std::move(signal_tx)]() mutable {
    for (int i = 0; i < 3; ++i) data.write(i);
    signal.write(0);
  });
  net.process("consumer", [data = std::move(data_rx), signal = std::move(signal_rx)]() mutable {
    data.read();
    signal.read();
    while (data.read()) {
    }
  });
  const kpn::RunReport report = kpn::Runtime(traced({"handoff", 1}, file)).run(net);
  REQUIRE(report.deadlocks_resolved >= 1);
  CHECK_THAT(read_text(file), Contains(R"("name":"channel grown")") && Contains(R"("channel":"data","from":1,"to":2)"));
}

TEST_CASE("a failing process's trace records the failure with the process's name", "[runtime][trace]") {
  const fs::path file = scratch("failure.json");
  kpn::Network net;
  net.process("faulty", [] { throw std::runtime_error("sensor unplugged"); });
  REQUIRE_THROWS_AS(kpn::Runtime(traced({"handoff", 2}, file)).run(net), kpn::ProcessFailed);
  CHECK_THAT(read_text(file), Contains(R"("cat":"failure")") && Contains("faulty") && Contains("sensor unplugged"));
}

TEST_CASE("channel fill levels are sampled into counters", "[runtime][trace]") {
  const fs::path file = scratch("counters.json");
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(8, "buffered");
  net.process("writer", [tx = std::move(tx)]() mutable {
    for (int i = 0; i < 8; ++i) tx.write(i);
  });
  net.process("slow-reader", [rx = std::move(rx)]() mutable {
    // The sampler runs every millisecond: give it a few looks at a channel that holds messages.
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
    while (std::chrono::steady_clock::now() < until) kpn::yield();
    while (rx.read()) {
    }
  });
  kpn::Runtime(traced({"handoff", 2}, file)).run(net);
  CHECK_THAT(read_text(file), Contains(R"("ph":"C","cat":"channel","name":"channel buffered")"));
}

TEST_CASE("a trace file that cannot be written is reported in the run's report, not thrown", "[runtime][trace]") {
  kpn::Network net;
  build_pipeline(net, 10);
  kpn::RuntimeOptions options = traced({"handoff", 1}, "/nonexistent-directory/trace.json");
  const kpn::RunReport report = kpn::Runtime(options).run(net);
  CHECK_THAT(report.trace_error, Contains("/nonexistent-directory/trace.json"));
  CHECK_THAT(report.summary(), Contains("trace: cannot open"));
}

TEST_CASE("an untraced run records nothing and says nothing about traces", "[runtime][trace]") {
  kpn::Network net;
  build_pipeline(net, 10);
  const kpn::RunReport report = kpn::Runtime({.cpus = 1}).run(net);
  CHECK(report.trace_file.empty());
  CHECK(report.trace_events == 0);
  CHECK_THAT(report.to_json(), !Contains("\"trace\""));
}

TEST_CASE("a trace limit or sample period of zero is refused", "[runtime][trace]") {
  kpn::RuntimeOptions options{.cpus = 1};
  options.trace = scratch("refused.json").string();
  options.trace_limit = 0;
  CHECK_THROWS_WITH(kpn::Runtime(options), Contains("trace_limit"));
  options.trace_limit = 10;
  options.trace_sample_ms = 0;
  CHECK_THROWS_WITH(kpn::Runtime(options), Contains("trace_sample_ms"));
}

TEST_CASE("the trace summary counts every process run and every steal the run's report counts", "[runtime][trace]") {
  const fs::path file = scratch("summary-counts.json");
  kpn::Network net;
  build_pipeline(net, 400);
  const kpn::RunReport report = kpn::Runtime(traced({"handoff", 2}, file)).run(net);
  REQUIRE(report.trace_dropped == 0);
  const ScriptResult r = run_script("tools/trace_summary.py", quoted(file));
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains(with_commas(report.context_switches) + " process runs, " + with_commas(report.steals) +
                             " steals"));
  CHECK_THAT(r.out, Contains("worker 0 (PU ") && Contains("worker 1 (PU ") && Contains("all workers"));
  for (const char* process : {"source", "relay1", "relay2", "relay3", "sink"}) CHECK_THAT(r.out, Contains(process));
}

TEST_CASE("the trace summary charges a worker's idle time to the process whose park left it with nothing to run",
          "[runtime][trace]") {
  const fs::path file = scratch("summary-idle.json");
  kpn::Network net;
  auto [tx, rx] = net.channel<int>(1, "ticks");
  // On one worker: `ticker` hands each tick to the parked `listener` and sleeps; the listener runs, parks
  // on the empty channel, and the worker has nothing to run until the ticker's timer fires. Every such gap
  // follows the listener's park.
  net.process("ticker", [tx = std::move(tx)]() mutable {
    for (int i = 0; i < 5; ++i) {
      tx.write(i);
      kpn::sleep_for(std::chrono::milliseconds(10));
    }
  });
  net.process("listener", [rx = std::move(rx)]() mutable {
    while (rx.read()) {
    }
  });
  kpn::Runtime(traced({"handoff", 1}, file)).run(net);
  const ScriptResult r = run_script("tools/trace_summary.py", quoted(file) + " --gap-us 2000");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("listener") && Contains("5 gaps") && Contains("after: park: read ticks"));
}

TEST_CASE("the trace summary refuses a file that is not a kpn trace, naming it", "[runtime][trace]") {
  const fs::path file = scratch("not-a-trace.json");
  std::ofstream(file) << R"({"traceEvents": []})";
  const ScriptResult r = run_script("tools/trace_summary.py", quoted(file));
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains(file.string()) && Contains("not a kpn trace"));
}
