// One network over MPI ranks from C++ (docs/distributed.md, "From C++"): the network is described with
// kpn::TopologyBuilder, from built-in kinds (source, split) and two kinds of this program, one of which
// sends a message type of its own (Square) that crosses ranks through its Wire<Square> codec.
//
//   source -> split -> square[0..w-1] -> total          (square[i] dealt round-robin over the ranks)
//
//   mpirun -np 2 build/bin/distributed-squares-example [--count N] [--workers W] [--work-us U] [--cpus C] [--pilot-ms MS]
//   build/bin/distributed-squares-example ...           (without mpirun: the same network on this machine)
//
// Prints "squares: count=N sum=S" (the sum of the squares of 0..N-1), the same on any number of ranks.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <kpn.hpp>

#include "distributed/remote_types.hpp"
#include "distributed/run.hpp"
#include "distributed/session.hpp"
#include "distributed/wire.hpp"
#include "networks/builder.hpp"
#include "networks/kinds.hpp"
#include "networks/message_types.hpp"
#include "networks/topology_builder.hpp"
#include "networks/topology_error.hpp"
#include "networks/work.hpp"

namespace {

using i64 = std::int64_t;

// A message type of this program: a number and its square.
struct Square {
  i64 n = 0;
  i64 square = 0;
};

}  // namespace

// How a Square crosses ranks: both numbers, as they are in memory (every rank runs this same program).
template <>
struct kpn::distributed::Wire<Square> {
  static void put(std::string& out, const Square& s) {
    Wire<i64>::put(out, s.n);
    Wire<i64>::put(out, s.square);
  }
  static Square get(const char*& p, const char* end) {
    Square s;
    s.n = Wire<i64>::get(p, end);
    s.square = Wire<i64>::get(p, end);
    return s;
  }
};

namespace {

// The port type "example.square" is a channel of Square on one machine, and across ranks.
KPN_REGISTER_MESSAGE_TYPE(square, "example.square", Square);
KPN_REGISTER_REMOTE_TYPE(square, "example.square", Square);

KPN_REGISTER_KIND(square, {
    .name = "example.square",
    .description = "writes each input number with its square, spending work_us of CPU on each",
    .ports = {kpn::in_port("in", "i64"), kpn::out_port("out", "example.square")},
    .args = {kpn::arg_float("work_us", 0, "CPU microseconds per number")},
    .factory = [](kpn::KindContext& ctx) -> kpn::UniqueFunction<void()> {
      const std::uint64_t iterations = kpn::work::iterations_for_us(ctx.float_arg("work_us"));
      return [in = ctx.input<i64>("in"), out = ctx.output<Square>("out"), iterations]() mutable {
        while (auto v = in.read()) {
          kpn::work::burn(iterations, static_cast<std::uint64_t>(*v));
          out.write(Square{*v, *v * *v});
        }
      };
    }});

KPN_REGISTER_KIND(total, {
    .name = "example.total",
    .description = "reads its inputs round-robin until every one has ended; prints how many squares and their sum",
    .ports = {kpn::in_array("in", "example.square")},
    .args = {},
    .factory = [](kpn::KindContext& ctx) -> kpn::UniqueFunction<void()> {
      return [ins = ctx.inputs<Square>("in"), results = &ctx.results()]() mutable {
        i64 count = 0;
        i64 sum = 0;
        bool wrong = false;
        for (std::size_t open = ins.size(); open > 0;) {
          open = 0;
          for (auto& in : ins) {
            auto s = in.read();
            if (!s) continue;
            ++open;
            ++count;
            sum += s->square;
            wrong = wrong || s->square != s->n * s->n;
          }
        }
        results->line("squares: count=" + std::to_string(count) + " sum=" + std::to_string(sum) + (wrong ? " WRONG" : ""));
      };
    }});

struct Args {
  i64 count = 100000;
  i64 workers = 4;
  double work_us = 0;
  unsigned cpus = 0;
  unsigned pilot_ms = 0;
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (k == "--count") a.count = std::atoll(v);
    else if (k == "--workers") a.workers = std::atoll(v);
    else if (k == "--work-us") a.work_us = std::atof(v);
    else if (k == "--cpus") a.cpus = static_cast<unsigned>(std::atoi(v));
    else if (k == "--pilot-ms") a.pilot_ms = static_cast<unsigned>(std::atoi(v));
    else return false;
  }
  return true;
}

// The network, the same on every rank. Errors in it (a count below 0) are reported by resolve(), at
// the line below that declared the culprit.
kpn::TopologyBuilder squares(const Args& a) {
  kpn::TopologyBuilder b("squares");
  b.process("source", "source").arg("count", a.count);
  b.process("split", "split");
  b.process("square", "example.square").replicas(a.workers).arg("work_us", a.work_us).rank("round-robin");
  b.process("total", "example.total");
  b.channel("source.out", "split.in").capacity(16);
  b.channel("split.out", "square.in").capacity(16);
  b.channel("square.out", "total.in").capacity(16);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr, "usage: [mpirun -np R] %s [--count N] [--workers W] [--work-us U] [--cpus C] [--pilot-ms MS]\n", argv[0]);
    return 2;
  }
  if (!kpn::distributed::launched_by_mpi()) {
    // On this machine alone: the same topology, built and run as kpn-run runs a file.
    try {
      kpn::ResultSink results([](std::string_view line) { std::printf("%.*s\n", static_cast<int>(line.size()), line.data()); });
      kpn::Network net = kpn::build_network(kpn::resolve(squares(a).topology(), {}), results);
      kpn::Runtime({.cpus = a.cpus}).run(net);
      return 0;
    } catch (const kpn::TopologyError& e) {
      for (const auto& d : e.diagnostics()) std::fprintf(stderr, "error: %s\n", d.str().c_str());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "distributed-squares-example: %s\n", e.what());
      return 1;
    }
  }
  kpn::distributed::Session session(argc, argv);  // MPI_Init; MPI_Finalize when it goes
  kpn::distributed::RunOptions options;
  options.runtime.cpus = a.cpus;
  options.pilot_ms = a.pilot_ms;
  options.program = "distributed-squares-example";
  return kpn::distributed::run(session, kpn::distributed::topology_source(squares(a).topology()), options).exit_code;
}
