// The credit window of a cross-rank channel, instrumented (run under mpirun -np 2; tests/CMakeLists.txt):
// rank 0 writes N values into the writer's end of a channel of capacity C, rank 1 reads them slowly. The
// writer may never be more than C messages ahead of the reader: write k+C can return only after the
// reader has consumed value k, so it returns after the reader started to read k. Both ranks stamp with
// CLOCK_MONOTONIC (one machine: one clock); rank 1 sends its stamps to rank 0, which checks every k.
//
//   mpirun -np 2 kpn-distributed-window-test C

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <kpn.hpp>

#include "distributed/comm.hpp"
#include "distributed/remote_channels.hpp"
#include "distributed/session.hpp"

namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  namespace d = kpn::distributed;
  const std::size_t capacity = argc > 1 ? static_cast<std::size_t>(std::atoi(argv[1])) : 1;
  constexpr std::size_t kCount = 100;
  d::Session session(argc, argv);
  if (session.size() != 2 || capacity < 1) {
    std::fprintf(stderr, "usage: mpirun -np 2 %s CAPACITY\n", argv[0]);
    return 2;
  }
  const int rank = session.rank();
  std::vector<std::int64_t> stamps(kCount, 0);  // rank 0: when write k returned; rank 1: when read k began
  bool values_ok = true;
  std::uint64_t stalls = 0;
  {
    d::Comm comm(rank, 2);
    kpn::Network net;
    if (rank == 0) {
      d::OutLink& link = comm.add_out_link(0, 1);
      auto out = d::make_outbox<std::int64_t>("window", capacity, link, comm);
      net.add_channel(out);
      net.process("writer", [out, &stamps] {
        kpn::Writer<std::int64_t> w(out);
        for (std::size_t k = 0; k < kCount; ++k) {
          w.write(static_cast<std::int64_t>(k));
          stamps[k] = now_ns();
        }
      });
      net.add_process("poller", [&comm] { d::run_link_poller(comm); }, d::link_poller_options());
      comm.start();
      kpn::Runtime({.cpus = 1}).run(net);
      stalls = out->credit_stalls();
    } else {
      d::InLink& link = comm.add_in_link(0, 0);
      auto in = d::make_inbox<std::int64_t>("window", capacity, link, comm);
      net.add_channel(in);
      net.process("reader", [in, &stamps, &values_ok] {
        kpn::Reader<std::int64_t> r(in);
        for (std::size_t k = 0; k < kCount; ++k) {
          stamps[k] = now_ns();
          const auto v = r.read();
          if (!v || *v != static_cast<std::int64_t>(k)) values_ok = false;
          // A slow reader: a writer that ran ahead would have its write back long before the next read
          // (5 ms is far above a credit's round trip, even on a loaded machine).
          kpn::sleep_for(std::chrono::milliseconds(5));
        }
        if (r.read()) values_ok = false;  // then the end of the stream
      });
      net.add_process("poller", [&comm] { d::run_link_poller(comm); }, d::link_poller_options());
      comm.start();
      kpn::Runtime({.cpus = 1}).run(net);
    }
    comm.finish();
  }
  std::vector<std::int64_t> read_started(kCount, 0);
  if (rank == 1) {
    MPI_Send(stamps.data(), static_cast<int>(kCount), MPI_INT64_T, 0, 7, MPI_COMM_WORLD);
    const int ok = values_ok ? 1 : 0;
    MPI_Send(&ok, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    return 0;
  }
  MPI_Recv(read_started.data(), static_cast<int>(kCount), MPI_INT64_T, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int reader_ok = 0;
  MPI_Recv(&reader_ok, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::size_t ahead = 0;
  for (std::size_t k = 0; k + capacity < kCount; ++k) {
    if (stamps[k + capacity] < read_started[k]) {
      if (ahead++ < 5) std::fprintf(stderr, "write %zu returned %lld ns before read %zu began\n", k + capacity,
                                    static_cast<long long>(read_started[k] - stamps[k + capacity]), k);
    }
  }
  std::printf("capacity %zu: %zu values, %zu writes ahead of the window, %llu credit stalls, reader %s\n", capacity, kCount, ahead,
              static_cast<unsigned long long>(stalls), reader_ok ? "read every value in order" : "saw a wrong value");
  // The slow reader must also have made the writer wait (else the check above tested nothing).
  return ahead == 0 && reader_ok && stalls >= kCount / (2 * capacity) ? 0 : 1;
}
