#include "channels/select.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "runtime/busy_wait_mutex.hpp"
#include "runtime/held_reads.hpp"
#include "runtime/multi_wait.hpp"
#include "runtime/steady_time.hpp"

namespace kpn::nondeterministic::detail {

namespace {

// A per-thread generator, reached out of line (a process may move to another kernel thread at any switch,
// current.hpp). Its quality only spreads choices; it decides nothing else.
[[gnu::noinline]] std::uint64_t next_random() noexcept {
  thread_local std::uint64_t state = [] {
    std::random_device rd;
    return (std::uint64_t{rd()} << 32 | rd()) | 1;
  }();
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

}  // namespace

std::optional<std::size_t> select_until_ns(std::span<const SelectCase> cases, std::int64_t deadline_ns) {
  if (cases.empty()) {
    throw std::invalid_argument("kpn::nondeterministic::select: no channel ends to wait on (a select needs at least one)");
  }
  give_back_held_reads();  // before any lock is taken (held_reads.hpp); park_any asserts it
  MultiWait wait;
  wait.slots.reserve(cases.size());
  for (const SelectCase& c : cases) {
    if (c.channel == nullptr) throw std::invalid_argument("kpn::nondeterministic::select: a case without a channel");
    const SelectPoint point = c.channel->select_point(c.writer_side);
    if (point.lock == nullptr) {
      throw std::invalid_argument(fmt::format("kpn::nondeterministic::select: channel '{}' is of a kind that cannot be selected on",
                                              c.channel->name()));
    }
    const bool seen = std::any_of(wait.slots.begin(), wait.slots.end(), [&](const WaitSlot& s) { return s.slot == point.slot; });
    if (!seen) {
      wait.slots.push_back({point.lock, point.slot, c.channel, c.writer_side ? WaitDirection::Write : WaitDirection::Read});
      wait.locks.push_back(point.lock);
    }
  }
  const bool timed = deadline_ns != kForever && deadline_ns != kpn::detail::kNoWait;
  if (timed) wait.locks.push_back(&timer_lock());
  std::sort(wait.locks.begin(), wait.locks.end());
  wait.locks.erase(std::unique(wait.locks.begin(), wait.locks.end()), wait.locks.end());

  std::vector<std::size_t> ready;
  ready.reserve(cases.size());
  bool expired = false;
  for (;;) {
    lock_all(wait.locks);
    ready.clear();
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (cases[i].channel->select_ready(cases[i].writer_side)) ready.push_back(i);
    }
    if (!ready.empty()) {
      unlock_all(wait.locks);
      return ready.size() == 1 ? ready[0] : ready[next_random() % ready.size()];
    }
    if (deadline_ns == kpn::detail::kNoWait || (timed && (expired || deadline_ns <= steady_ns()))) {
      unlock_all(wait.locks);
      return std::nullopt;
    }
    expired = park_any(wait, timed ? deadline_ns : kNoDeadline);
  }
}

}  // namespace kpn::nondeterministic::detail
