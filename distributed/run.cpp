#include "distributed/run.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "distributed/comm.hpp"
#include "distributed/pilot.hpp"
#include "distributed/placement.hpp"
#include "distributed/rank_network.hpp"
#include "distributed/run_report.hpp"
#include "networks/builder.hpp"
#include "networks/topology_error.hpp"
#include "runtime/config.hpp"
#include "runtime/errors.hpp"
#include "runtime/scheduler_registry.hpp"

namespace kpn::distributed {
namespace {

// Runs `f`, a step that may fail on this rank only; maps what it throws to an exit status, printing it
// with the rank, so that every rank says what went wrong where.
template <class F>
int step(const std::string& program, int rank, F&& f) {
  try {
    f();
    return kExitOk;
  } catch (const TopologyError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << fmt::format("error: {} (rank {})\n", d.str(), rank);
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << fmt::format("{}: rank {}: {}\n", program, rank, e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << fmt::format("{}: rank {}: {}\n", program, rank, e.what());
    return kExitRunFailed;
  }
}

std::string signal_name(int sig) { return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : fmt::format("signal {}", sig); }

// The network's results on stdout, a line each; the first write error (errno) goes to `error`.
std::function<void(std::string_view)> stdout_lines(std::atomic<int>& error) {
  return [&error](std::string_view line) {
    errno = 0;
    const bool written = std::fwrite(line.data(), 1, line.size(), stdout) == line.size() && std::fputc('\n', stdout) != EOF &&
                         std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
    int none = 0;
    if (!written) error.compare_exchange_strong(none, errno != 0 ? errno : EIO);
  };
}

}  // namespace

Outcome run(Session& session, const NetworkSource& source, const RunOptions& opt) {
  const std::string& program = opt.program;
  const int rank = session.rank();
  const int ranks = session.size();
  Outcome out;
  // After a step that may fail on some ranks only: every rank stops if one did, with the same status.
  auto agreed = [&](int code) {
    const int all = session.max_over_ranks(code);
    if (all != kExitOk && code == kExitOk) std::cerr << fmt::format("{}: rank {}: stopping: another rank reported an error\n", program, rank);
    out.exit_code = all;
    return all;
  };
  auto signal = [&opt] { return opt.stop_signal ? opt.stop_signal() : 0; };

  // Before any thread of the runtime starts: ranks sharing a host take disjoint CPUs (session.hpp).
  std::string cpu_share;
  int code = step(program, rank, [&] {
    if (!opt.runtime.trace.empty()) throw std::invalid_argument("a distributed run cannot be traced (RuntimeOptions::trace)");
    if (opt.pilot_ms > kMaxPilotMs) {
      throw std::invalid_argument(fmt::format("a pilot of {} ms is longer than the longest, {} ms", opt.pilot_ms, kMaxPilotMs));
    }
    cpu_share = session.share_host_cpus();
  });
  if (agreed(code) != kExitOk) return out;

  // The same network everywhere: rank 0's fingerprint of it, compared on each rank (before resolving
  // when the source has one, so that a file that fails to load on one rank is still told apart).
  auto same_network = [&](auto&& fingerprint) {
    std::uint64_t hash = 0;
    int c = step(program, rank, [&] { hash = fingerprint(); });
    const std::uint64_t hash0 = session.broadcast(hash);
    if (c == kExitOk && hash != hash0) {
      std::cerr << fmt::format("{}: rank {}: the network differs from rank 0's: {} hash to {:016x} here and to {:016x} on rank 0; "
                               "every rank must hold the same network\n",
                               program, rank, source.what, hash, hash0);
      c = kExitBadInput;
    }
    return agreed(c);
  };
  if (source.fingerprint && same_network(source.fingerprint) != kExitOk) return out;

  // Resolve and build the whole network once without running it, so that an error of the network (a kind
  // rejecting its arguments) is found on every rank, not only on the rank of that process.
  std::shared_ptr<const ResolvedNetwork> resolved;
  code = step(program, rank, [&] {
    (void)make_scheduler(opt.runtime.scheduler, opt.runtime.scheduler_options);  // a wrong name or setting: exit 2
    resolved = std::make_shared<const ResolvedNetwork>(source.resolve());
    out.network = resolved;
    ResultSink discard([](std::string_view) {});
    (void)build_network(*resolved, discard);
    check_ranks(*resolved, ranks);
  });
  if (agreed(code) != kExitOk) return out;
  if (!source.fingerprint && same_network([&] { return network_hash(*resolved); }) != kExitOk) return out;

  // Placement: decided at rank 0 (after its pilot run, if asked) and broadcast.
  Placement placement;
  code = step(program, rank, [&] {
    if (rank != 0) return;
    if (opt.pilot_ms == 0) {
      placement = place(*resolved, ranks);
      return;
    }
    const Profile pilot = run_pilot(*resolved, opt.pilot_ms, opt.runtime, opt.on_runtime);
    placement = place(*resolved, ranks, &pilot);
  });
  if (code == kExitOk && signal() != 0) {
    std::cerr << fmt::format("{}: rank {}: interrupted by {} during the pilot run\n", program, rank, signal_name(signal()));
    code = 128 + signal();
  }
  if (agreed(code) != kExitOk) return out;
  std::vector<int> where = rank == 0 ? placement.rank : std::vector<int>(resolved->processes.size(), 0);
  session.broadcast(where);
  if (rank != 0) placement = described(*resolved, std::move(where), ranks, "rank 0's");
  if (rank == 0 && !opt.quiet) std::cerr << placement_summary(*resolved, placement, ranks);

  std::atomic<int> results_error{0};
  std::optional<ResultSink> own_results;
  if (opt.results == nullptr) own_results.emplace(stdout_lines(results_error));
  ResultSink& results = opt.results != nullptr ? *opt.results : *own_results;
  Comm comm(rank, ranks);  // collective (a communicator of its own)
  std::optional<RankNetwork> part;
  std::optional<Runtime> runtime;
  code = step(program, rank, [&] {
    part.emplace(build_rank_network(*resolved, placement, rank, results, comm));
    runtime.emplace(opt.runtime);
  });
  if (agreed(code) != kExitOk) return out;

  comm.on_remote_failure([&runtime] { runtime->interrupt(); });
  part->watch->count_live([&runtime] { return runtime->live_processes(); },
                          [&comm, pollers = static_cast<std::int64_t>(part->pollers)] { return comm.links_over() ? 0 : pollers; });
  comm.set_watch(part->watch.get());
  comm.set_max_capacity(opt.runtime.max_capacity);
  comm.set_peer_timeout(std::chrono::milliseconds(static_cast<std::int64_t>(opt.peer_timeout_s * 1000.0)));
  // The program's signal handler points at this rank's runtime from here to the end of the call: a
  // SIGTERM that mpirun sends after this rank's run has returned (its part was done first) must not end
  // it before the ranks have finished together, or the others would take it for lost.
  struct Attached {
    const std::function<void(Runtime*)>& hook;
    Attached(const std::function<void(Runtime*)>& h, Runtime& rt) : hook(h) {
      if (hook) hook(&rt);
    }
    ~Attached() {
      if (hook) hook(nullptr);
    }
    Attached(const Attached&) = delete;
    Attached& operator=(const Attached&) = delete;
  };
  const Attached attached(opt.on_runtime, *runtime);

  comm.start();
  const auto started = std::chrono::steady_clock::now();
  std::shared_ptr<const RunReport> report;
  std::string status = "ok";
  std::string error;
  try {
    report = std::make_shared<const RunReport>(runtime->run(part->network));
  } catch (const RunError& e) {
    report = e.report();
    const bool interrupted = dynamic_cast<const Interrupted*>(&e) != nullptr;
    const std::optional<std::string> remote = comm.remote_failure();
    if (interrupted && remote) {
      // Stopped because another rank failed, or by rank 0's deadlock check: that is the run's outcome.
      status = remote->starts_with("deadlock")                          ? "deadlock"
               : remote->find(": interrupted by SIG") != std::string::npos ? "interrupted"
                                                                          : "failed";
      error = "stopped: " + *remote;
      code = kExitRunFailed;
    } else if (interrupted) {
      const int sig = signal() != 0 ? signal() : SIGINT;
      status = "interrupted";
      error = fmt::format("interrupted by {}", signal_name(sig));
      code = 128 + sig;
      comm.stopped_by_signal();  // mpirun may be ending the job because a rank died: name it soon
      comm.post_abort(fmt::format("rank {} ({}): {}", rank, session.host(), error));
    } else {
      status = dynamic_cast<const DeadlockError*>(&e) != nullptr ? "deadlock" : "failed";
      error = e.what();
      code = kExitRunFailed;
      comm.post_abort(fmt::format("rank {} ({}): {}", rank, session.host(), error));
    }
    std::cerr << fmt::format("{}: rank {}: {}\n", program, rank, error);
  } catch (const std::exception& e) {
    // Not the network's failure (the runtime could not start, memory): still one that every rank must
    // hear of, or they would wait for this one forever.
    status = "failed";
    error = e.what();
    code = kExitRunFailed;
    comm.post_abort(fmt::format("rank {} ({}): {}", rank, session.host(), error));
    std::cerr << fmt::format("{}: rank {}: {}\n", program, rank, error);
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  comm.finish();  // every rank's run is over, and every message received, once this returns (or a rank is lost)
  if (const int err = results_error.load(); err != 0) {
    std::cerr << fmt::format("{}: rank {}: cannot write the network's results to stdout: {}\n", program, rank, std::strerror(err));
    code = kExitRunFailed;
  }
  const std::optional<std::string> lost = comm.lost_peer();
  if (lost) {
    // No collective can complete without the lost rank: this rank says which one it was, rank 0 reports
    // what it has (its own part), and the job ends here (comm.hpp: liveness).
    if (error.find(*lost) == std::string::npos) std::cerr << fmt::format("{}: rank {}: {}\n", program, rank, *lost);
    error = error.empty() || error.find(*lost) != std::string::npos ? *lost : *lost + "; this rank: " + error;
    status = "failed";
    code = kExitRunFailed;
  }
  const int final_code = lost ? code : session.max_over_ranks(code);
  out.exit_code = final_code;
  out.status = status;
  out.error = error;
  out.report = report;

  // The report: every rank's numbers gathered at rank 0.
  RankFigures f;
  f.rank = rank;
  f.host = session.host();
  f.status = status;
  f.error = error;
  f.wall_s = wall_s;
  f.processes = part->processes;
  f.cross_channels = part->cross_channels;
  f.comm = comm.stats();
  f.credit_stalls = part->total_credit_stalls();
  f.cpu_share = cpu_share;
  const std::string mine = rank_json(f, report.get());
  if (lost && rank != 0) session.abort(final_code);
  const std::vector<std::string> per_rank = lost ? std::vector<std::string>{mine} : session.gather(mine);
  const std::vector<std::uint64_t> totals = lost ? totals_of(f) : session.sum(totals_of(f));
  const double slowest_s = lost ? wall_s : session.max_over_ranks(wall_s);
  // From here on only rank 0 (no collective follows); a lost rank ends the job once the report is out.
  if (rank != 0) return out;
  if (report && !opt.quiet) std::cerr << report->summary();
  if (!opt.quiet) std::cerr << job_summary(ranks, slowest_s, totals);
  if (final_code != kExitOk && code == kExitOk) std::cerr << fmt::format("{}: rank 0: another rank failed (its error is above)\n", program);
  // With a lost rank, per_rank and the totals are rank 0's alone, and "lost" says why.
  out.distributed_json = job_json(*resolved, placement, ranks, final_code, slowest_s, totals, lost, per_rank);
  if (opt.on_report && report) out.exit_code = opt.on_report(out);
  if (lost) session.abort(out.exit_code);
  return out;
}

}  // namespace kpn::distributed
