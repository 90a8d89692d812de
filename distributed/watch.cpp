#include "distributed/watch.hpp"


#include <fmt/format.h>

#include "runtime/process_exit.hpp"

namespace kpn::distributed {
namespace {

void mix(std::uint64_t& h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
}

}  // namespace

UniqueFunction<void()> watched_body(UniqueFunction<void()> body, std::shared_ptr<std::atomic<bool>> ended) {
  return [b = std::move(body), ended = std::move(ended)]() mutable {
    try {
      b();
    } catch (const ProcessExit&) {
    }
    b = nullptr;  // the endpoints go here, as the runtime would destroy them right after
    ended->store(true, std::memory_order_release);
  };
}

WatchSample RankWatch::sample() const {
  WatchSample s;
  s.stalled = true;
  std::uint64_t h = 0;
  for (const auto& c : channels_) {
    const ChannelSnapshot snap = c->snapshot();
    mix(h, snap.messages);
    mix(h, snap.size);
    mix(h, snap.reader_waiting_parks);
    mix(h, snap.writer_waiting_parks);
    mix(h, snap.reader_waiting);
    mix(h, snap.writer_waiting);
  }
  s.fingerprint = h;
  std::int64_t unended = 0;
  for (const auto& p : processes_) {
    if (p.ended->load(std::memory_order_acquire)) continue;
    ++unended;
    bool waits = false;
    for (const auto& [channel, writes] : p.ports) {
      const ChannelSnapshot snap = channel->snapshot();
      const ProcessId waiter = writes ? snap.writer_waiting : snap.reader_waiting;
      const ProcessId user = writes ? snap.writer : snap.reader;
      // A wait with a deadline ends by its timer, if by nothing else: such a process is not stalled.
      const bool timed = writes ? snap.writer_waiting_timed : snap.reader_waiting_timed;
      if (waiter != 0 && waiter == user && !timed) {
        waits = true;
        if (writes && snap.size >= snap.capacity && (s.full == nullptr || snap.capacity < s.full_capacity)) {
          s.full = channel;
          s.full_capacity = snap.capacity;
          s.full_name = snap.name;
        }
        if (s.blocked.size() < 2000) {
          s.blocked += fmt::format("{}{} {} '{}'", s.blocked.empty() ? "" : "; ", p.name, writes ? "writes" : "reads", snap.name);
        }
        break;
      }
    }
    if (!waits) s.stalled = false;
  }
  // A spawned process: read after the slots, so that a waiter seen in its slot has its spawns counted (the
  // spawn came before its park, which the slot's lock orders before this look), and the run's count before
  // the pollers' (a poller ends only after the links are over, so one counted out by pollers() was not
  // alive when live() was read, or is counted in both). Either race counts a process too many: a false
  // "not stalled", never a false stall. A declared process that has ended but not yet exited counts too.
  if (s.stalled && live_) {
    const std::int64_t live = live_();
    const std::int64_t pollers = pollers_ ? pollers_() : 0;
    if (live > unended + pollers) s.stalled = false;
  }
  // A writer's end queued for the communication thread holds a message (or its close) not yet looked at.
  // The sample is taken on that thread, between its looks, so a delivery is never half done here.
  for (const OutLink* l : out_) {
    if (l->queued.load(std::memory_order_acquire)) s.stalled = false;
  }
  return s;
}

}  // namespace kpn::distributed
