#pragma once
// The MPI tags of a communication thread's messages (comm.hpp), shared by its two files: comm.cpp (the
// transport, liveness and the end) and comm_check.cpp (the check across ranks: deadlocks and growth).

namespace kpn::distributed::tags {

inline constexpr int kChannel = 1;  // DATA, EOS, CREDITS, BROKEN: in order between two ranks
inline constexpr int kAbort = 2;
inline constexpr int kProbe = 3;   // rank 0 -> the others: a round of the deadlock check
inline constexpr int kStatus = 4;  // the others -> rank 0: their answer
inline constexpr int kAlive = 5;   // liveness: sent to a peer that was sent nothing else for a while
inline constexpr int kGrow = 6;    // rank 0 -> a rank: Parks' growth of the full channel it reported

}  // namespace kpn::distributed::tags
