#pragma once
// kpn-run's exit status, as its --help footer and docs/runner.md list it: 0 success; 1 the network failed at
// run time (a process threw, or a deadlock), or its results could not be written; 2 the command line or the
// file is wrong; 128 + N when stopped by signal N.

namespace kpn_run {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;
inline constexpr int kExitBadInput = 2;

}  // namespace kpn_run
