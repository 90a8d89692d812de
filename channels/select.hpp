#pragma once
// kpn::nondeterministic::select: waits until one of several channel ends is ready and says which.
//
//   using namespace kpn::nondeterministic;
//   for (;;) {
//     const std::size_t i = select({readable(left), readable(right)});   // 0 or 1, whichever is ready
//     auto v = (i == 0 ? left : right).read();                             // does not block now
//     if (!v) break;                                                       // that stream has ended
//     out.write(*v);
//   }
//
// NOT DETERMINISTIC. Which end is ready first depends on timing, so a process that selects computes
// values that depend on scheduling: its network is no longer a Kahn network (a merge by arrival gives a
// different interleaving from run to run). Kahn networks leave select out on purpose; it is here, under a
// name that says so, for the processes that meet the outside world (docs/api.md).
//
// Ready means the end's blocking operation would return at once: a read end when a message waits or the
// stream has ended (closed and drained: read() returns std::nullopt, try_read() Closed); a write end when
// there is room, or when a write would throw at once (ChannelClosed, BrokenChannel). Readiness stays true
// until the calling process acts on that end (it is the end's only user), so the operation that follows
// select does not block. Among several ready ends select picks one uniformly at random, so none starves.
//
// The ends must belong to the calling process (as any operation on them; ChannelMisuse otherwise). An end
// may appear more than once. Zero ends is an error (std::invalid_argument). select_for / select_until also
// return std::nullopt when the deadline passes first (negative durations: std::invalid_argument); a zero
// duration does not park. While the process is cancelled or the network stops, select unwinds the process
// like any blocking operation. Deadlock detection counts a selecting process as blocked only while none of
// its ends is ready, and as deadlocked only when everything it waits on is blocked too.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>

#include "channels/endpoints.hpp"
#include "runtime/export.hpp"
#include "runtime/timers.hpp"

namespace kpn::nondeterministic {

template <class T>
SelectCase readable(Reader<T>& reader) {
  return reader.select_case();
}
template <class T>
SelectCase writable(Writer<T>& writer) {
  return writer.select_case();
}

namespace detail {
// The index of a ready case, or std::nullopt when `deadline_ns` (steady_ns) passed first; kpn::detail::
// kNoWait: do not park; kForever: no deadline.
inline constexpr std::int64_t kForever = -1;
KPN_EXPORT std::optional<std::size_t> select_until_ns(std::span<const SelectCase> cases, std::int64_t deadline_ns);
}  // namespace detail

// Waits until one of `cases` is ready; returns its index.
inline std::size_t select(std::span<const SelectCase> cases) { return *detail::select_until_ns(cases, detail::kForever); }
inline std::size_t select(std::initializer_list<SelectCase> cases) {
  return select(std::span<const SelectCase>(cases.begin(), cases.size()));
}

// The same, giving up after `d` (std::nullopt).
template <class Rep, class Period>
std::optional<std::size_t> select_for(std::span<const SelectCase> cases, std::chrono::duration<Rep, Period> d) {
  const std::int64_t ns = kpn::detail::checked_ns("kpn::nondeterministic::select_for", d);
  return detail::select_until_ns(cases, ns == 0 ? kpn::detail::kNoWait : kpn::detail::deadline_after_ns(ns));
}
template <class Rep, class Period>
std::optional<std::size_t> select_for(std::initializer_list<SelectCase> cases, std::chrono::duration<Rep, Period> d) {
  return select_for(std::span<const SelectCase>(cases.begin(), cases.size()), d);
}

// The same, giving up at `t` (a steady_clock time point).
template <class Duration>
std::optional<std::size_t> select_until(std::span<const SelectCase> cases,
                                        std::chrono::time_point<std::chrono::steady_clock, Duration> t) {
  return detail::select_until_ns(cases, std::max<std::int64_t>(1, kpn::detail::steady_deadline_ns(t)));
}
template <class Duration>
std::optional<std::size_t> select_until(std::initializer_list<SelectCase> cases,
                                        std::chrono::time_point<std::chrono::steady_clock, Duration> t) {
  return select_until(std::span<const SelectCase>(cases.begin(), cases.size()), t);
}

}  // namespace kpn::nondeterministic
