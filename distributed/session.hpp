#pragma once
// MPI for one distributed run (run.hpp; kpn-run --distributed): initialisation, the rank and the rank count, and the few collective
// steps the runner takes before and after the run (from its main thread only).
//
// Thread level: MPI_THREAD_SERIALIZED. The main thread calls MPI before the communication thread starts
// and after it is joined, the communication thread in between; never two at once. FUNNELED would need
// every call on the main thread (which runs the runtime), MULTIPLE costs a lock in every MPI call and is
// not needed. A library that provides less is refused with a clear error.

#include <cstdint>
#include <string>
#include <vector>

namespace kpn::distributed {

// True when the program was started by an MPI launcher (mpirun, mpiexec, srun with PMI/PMIx): without one
// MPI_Init would start a singleton, or hang waiting for peers that never come.
bool launched_by_mpi();
// The environment variable that told it, for messages ("" when none).
std::string launcher_variable();

class Session {
 public:
  Session(int& argc, char**& argv);  // throws std::runtime_error if the thread level is not provided
  ~Session();                         // MPI_Finalize
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  const std::string& host() const noexcept { return host_; }

  // Collective: true if `ok` on every rank. Each step that can fail on some rank only is followed by one,
  // so that no rank waits in a later collective for a rank that has given up.
  bool all_ok(bool ok) const;
  // Collective: the largest `value` over the ranks.
  int max_over_ranks(int value) const;
  double max_over_ranks(double value) const;
  // Collective: rank 0's value.
  std::uint64_t broadcast(std::uint64_t value) const;
  void broadcast(std::vector<int>& values) const;  // every rank passes a vector of the same size
  // Collective: the element-wise sums over the ranks.
  std::vector<std::uint64_t> sum(std::vector<std::uint64_t> values) const;
  // Collective: every rank's text, at rank 0 (empty elsewhere).
  std::vector<std::string> gather(const std::string& text) const;
  // Collective: ranks started on one host with the same CPU affinity (mpirun without binding, as with
  // --oversubscribe) would pin their workers to the same PUs, every rank's first worker on the first PU,
  // and run one at a time. Each such rank narrows its affinity to its share of the host's CPUs: the
  // allowed CPUs in OS order, split in contiguous blocks by local rank (a rank past the CPU count shares
  // one, round-robin). Ranks already bound to different CPUs (mpirun --bind-to, srun --cpu-bind) keep them.
  // Returns what it did, for the report ("" when nothing was narrowed); std::runtime_error if the kernel
  // refused the new mask.
  std::string share_host_cpus();
  // Ranks on this host (after share_host_cpus: how many shared its CPUs), and this rank's index among them.
  int local_size() const noexcept { return local_size_; }
  int local_rank() const noexcept { return local_rank_; }

  // Not collective: ends every rank of the job with `code` (MPI_Abort), for when a rank is lost and no
  // collective can complete (comm.hpp: liveness). Open MPI's mpirun prints its own note and exits non-zero.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
  int local_rank_ = 0;
  int local_size_ = 1;
};

}  // namespace kpn::distributed
