#include "distributed/session.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>

namespace kpn::distributed {
namespace {

// Set by Open MPI's mpirun, by PMIx launchers (Open MPI 5, Slurm with PMIx) and by MPICH's Hydra / PMI.
constexpr const char* kLauncherVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};

}  // namespace

std::string launcher_variable() {
  for (const char* v : kLauncherVariables) {
    if (std::getenv(v) != nullptr) return v;
  }
  return "";
}

bool launched_by_mpi() { return !launcher_variable().empty(); }

Session::Session(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw std::runtime_error(fmt::format(
        "the MPI library provides thread level {} only; --distributed needs MPI_THREAD_SERIALIZED ({})", provided,
        MPI_THREAD_SERIALIZED));
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  host_.assign(name, static_cast<std::size_t>(length));
}

Session::~Session() { MPI_Finalize(); }

std::string Session::share_host_cpus() {
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  int local_rank = 0;
  int local_size = 1;
  MPI_Comm_rank(local, &local_rank);
  MPI_Comm_size(local, &local_size);
  local_rank_ = local_rank;
  local_size_ = local_size;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const bool have_mask = sched_getaffinity(0, sizeof mask, &mask) == 0;
  std::vector<int> cpus;
  for (int c = 0; have_mask && c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  }
  // The same mask on every rank of this host (or no mask anywhere): only then is there anything to split.
  std::uint64_t h = 1469598103934665603ull;
  for (int c : cpus) h = (h ^ static_cast<std::uint64_t>(c)) * 1099511628211ull;
  std::uint64_t lo = h;
  std::uint64_t hi = h;
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, local);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, local);
  MPI_Comm_free(&local);
  if (local_size == 1 || lo != hi || cpus.size() < 2) return "";
  const std::size_t n = cpus.size();
  const auto k = static_cast<std::size_t>(local_size);
  const auto i = static_cast<std::size_t>(local_rank);
  std::vector<int> share;
  if (k >= n) {
    share.push_back(cpus[i % n]);
  } else {
    share.assign(cpus.begin() + static_cast<std::ptrdiff_t>(i * n / k), cpus.begin() + static_cast<std::ptrdiff_t>((i + 1) * n / k));
  }
  cpu_set_t narrowed;
  CPU_ZERO(&narrowed);
  for (int c : share) CPU_SET(c, &narrowed);
  // Every thread of the process, MPI's own included: the runtime takes the union of their bindings as
  // the CPUs it may use (runtime/pinning.cpp), and threads started later inherit the main thread's.
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const pid_t tid = static_cast<pid_t>(std::strtol(task.path().filename().c_str(), nullptr, 10));
    if (sched_setaffinity(tid, sizeof narrowed, &narrowed) != 0 && errno != ESRCH) {
      throw std::runtime_error(
          fmt::format("cannot narrow rank {}'s CPU affinity to its share of the host: {}", rank_, std::strerror(errno)));
    }
  }
  if (ec && sched_setaffinity(0, sizeof narrowed, &narrowed) != 0) {
    throw std::runtime_error(fmt::format("cannot narrow rank {}'s CPU affinity to its share of the host: {}", rank_, std::strerror(errno)));
  }
  return fmt::format("{} of {} ranks on {} sharing its {} CPUs: CPUs {}", local_rank + 1, local_size, host_, n, fmt::join(share, ","));
}

void Session::abort(int code) const {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; should it, this rank still ends
}

bool Session::all_ok(bool ok) const {
  int mine = ok ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

int Session::max_over_ranks(int value) const {
  int result = value;
  MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

double Session::max_over_ranks(double value) const {
  double result = value;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

std::uint64_t Session::broadcast(std::uint64_t value) const {
  MPI_Bcast(&value, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return value;
}

void Session::broadcast(std::vector<int>& values) const {
  MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_INT, 0, MPI_COMM_WORLD);
}

std::vector<std::uint64_t> Session::sum(std::vector<std::uint64_t> values) const {
  std::vector<std::uint64_t> out(values.size());
  MPI_Allreduce(values.data(), out.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

std::vector<std::string> Session::gather(const std::string& text) const {
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size());
  std::string all;
  if (rank_ == 0) {
    int at = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = at;
      at += lengths[i];
    }
    all.resize(static_cast<std::size_t>(at));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  }
  return out;
}

}  // namespace kpn::distributed
