#include "runtime/cancel.hpp"

// The protocol of cancelling one process, beside blocking.hpp's park handshake:
//
//   canceller:  raises p's request flag -> under p's wait_guard_, reads p's wait record (park lock, slot)
//               -> if there is one, try_locks the park lock; if p is still in the slot, takes it out (and,
//               for a select, wins the claim, multi_wait.hpp) -> releases both -> unblock(p);
//   process p:  holding its park lock, publishes itself in the slot -> records the wait under wait_guard_
//               (publish_wait) -> reads the flag: raised -> clears the record, leaves the slot, unwinds;
//               otherwise switches out; once it runs again, clears the record (clear_wait) first, then
//               reads the flag: raised -> unwinds.
// No wake-up is lost: either the canceller's look at the record comes after p made it (it then finds p in
// the slot, or finds that a waker took it first, and that waker readies it), or it comes before, and then
// p's read of the flag after its record (ordered by wait_guard_) sees it raised. The canceller only
// try_locks the park lock (p holds it until it is off its stack, and the order park lock -> wait_guard_ is
// the process's): on failure it drops the guard, yields and looks again. The record points into a channel
// that p keeps alive while it waits; the guard keeps p in its wait (clear_wait needs it), so the canceller
// never follows a stale pointer. p itself is kept alive by the process table's lock, taken again (and the
// process found again by id) at each look, since a process may finish between two looks.
//
// A process in kpn::blocking has no record: it is readied by its pool thread and reads the flag then. A
// process that is running or queued reads the flag at its next blocking point.
//
// From the host, cancelling also takes the deadlock monitor's analysis lock (run.cpp): the global analysis
// relies on nothing waking while the network is quiescent, which a host thread could otherwise break.

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "runtime/busy_wait_mutex.hpp"
#include "runtime/cancelled.hpp"
#include "runtime/current.hpp"
#include "runtime/multi_wait.hpp"
#include "runtime/process.hpp"
#include "runtime/run_shared.hpp"
#include "runtime/this_process.hpp"
#include "runtime/wait_record.hpp"

namespace kpn {

bool publish_wait(Process& self, BusyWaitMutex& lock, Process*& slot) noexcept {
  self.wait_guard_.lock();
  self.park_lock_ = &lock;
  self.park_slot_ = &slot;
  self.wait_guard_.unlock();
  if (!self.cancel_requested()) return true;
  clear_wait(self);
  return false;
}

void clear_wait(Process& self) noexcept {
  self.wait_guard_.lock();
  self.park_lock_ = nullptr;
  self.park_slot_ = nullptr;
  self.wait_guard_.unlock();
}

bool take_for_cancel(Process& p, Process*& take) noexcept {
  bool done = true;
  p.wait_guard_.lock();
  BusyWaitMutex* lock = p.park_lock_;
  if (lock != nullptr) {
    if (!lock->try_lock()) {
      done = false;
    } else {
      Process*& slot = *p.park_slot_;
      if (slot == &p) {
        slot = nullptr;
        if (claim_waiter(&p)) take = &p;
      }
      lock->unlock();
    }
  }
  p.wait_guard_.unlock();
  return done;
}

namespace {

enum class Look { Done, Retry };

// One look at the process `id` (see the protocol above). Sets `take` when this canceller took it out of
// its slot and must ready it.
Look try_take(RunShared& run, ProcessId id, Process*& take) {
  Look result = Look::Done;
  run.table.for_each([&](Process& p) {
    if (p.id() != id) return;
    if (!take_for_cancel(p, take)) result = Look::Retry;
  });
  return result;
}

void pause_before_retry() {
  if (current_process() != nullptr) {
    yield_for_lock();
  } else {
    std::this_thread::yield();
  }
}

}  // namespace

std::size_t cancel_where(RunShared& run, const void* context, bool (*match)(const void*, const Process&)) {
  std::vector<ProcessId> targets;
  run.table.for_each([&](Process& p) {
    if (!match(context, p)) return;
    p.cancel_requested_.store(true, std::memory_order_release);
    targets.push_back(p.id());
  });
  for (ProcessId id : targets) {
    Process* take = nullptr;
    while (try_take(run, id, take) == Look::Retry) pause_before_retry();
    // Taken out of its slot: this canceller owns it, as a waker would, and it cannot finish meanwhile.
    if (take != nullptr) unblock(take);
  }
  return targets.size();
}

namespace {

struct Query {
  enum Kind { Name, Id, Group } kind;
  std::string_view text;
  ProcessId id;
};

bool matches(const void* context, const Process& p) {
  const auto& q = *static_cast<const Query*>(context);
  switch (q.kind) {
    case Query::Name: return p.name() == q.text;
    case Query::Id: return p.id() == q.id;
    case Query::Group: return !q.text.empty() && p.options().group == q.text;
  }
  return false;
}

// Whether the run ever had such a process (unfinished or finished); unknown ones are the caller's error.
bool ever_existed(RunShared& run, const Query& q) {
  switch (q.kind) {
    case Query::Name: return run.table.had_name(q.text);
    case Query::Id: return q.id != 0 && q.id < run.next_id.load(std::memory_order_relaxed);
    case Query::Group: return run.had_group(q.text);
  }
  return false;
}

std::string describe(const Query& q) {
  switch (q.kind) {
    case Query::Name: return fmt::format("no process named '{}' in this run", q.text);
    case Query::Id: return fmt::format("no process with id {} in this run", q.id);
    case Query::Group: return fmt::format("no process of group '{}' in this run", q.text);
  }
  return {};
}

std::size_t cancel_query(RunShared& run, const Query& q, const char* what) {
  const std::size_t n = cancel_where(run, &q, &matches);
  if (n == 0 && !ever_existed(run, q)) throw std::invalid_argument(fmt::format("{}: {}", what, describe(q)));
  return n;
}

// From a process: cancel, then unwind at once if the caller was among the cancelled.
std::size_t cancel_from_process(const Query& q, const char* what) {
  Process* self = current_process();
  if (self == nullptr) throw std::logic_error(std::string(what) + " may only be called from a kpn process (use Runtime::cancel from the host)");
  const std::size_t n = cancel_query(*current_run(), q, what);
  if (self->cancel_requested()) throw detail::Cancelled{};
  return n;
}

}  // namespace

std::size_t cancel(std::string_view process_name) {
  return cancel_from_process({Query::Name, process_name, 0}, "kpn::cancel");
}
std::size_t cancel(ProcessId id) { return cancel_from_process({Query::Id, {}, id}, "kpn::cancel"); }
std::size_t cancel_group(std::string_view group) {
  return cancel_from_process({Query::Group, group, 0}, "kpn::cancel_group");
}

namespace detail {
std::size_t cancel_in_run(RunShared& run, int kind, std::string_view text, ProcessId id, const char* what) {
  return cancel_query(run, Query{static_cast<Query::Kind>(kind), text, id}, what);
}
}  // namespace detail

}  // namespace kpn
