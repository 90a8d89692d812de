#include "runtime/cancel.hpp"

// Cancelling: raise the flags, then take every matching parked process out of its waiter slot the way a
// waker would and ready it (wait_record.hpp has the protocol with the parking process). A process in
// kpn::blocking has no wait record: it is readied by its pool thread and reads the flag then; an
// interruptible call is first told to stop (BlockingPool::stop_calls_of). A process that is running or
// queued reads the flag at its next blocking point.
//
// Processes are kept alive by the process table's lock, held from the begin of their inspection to its
// end; one heavy fence serves every process inspected in one hold. A look that finds the park lock busy
// (the process is still switching out, or leaving its wait) is tried again after a yield, with the
// process found again by id, since it may finish in between.
//
// From the host, cancelling also takes the deadlock monitor's analysis lock (run.cpp): the global analysis
// relies on nothing waking while the network is quiescent, which a host thread could otherwise break.

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "runtime/asymmetric_fence.hpp"
#include "runtime/blocking.hpp"
#include "runtime/busy_wait_mutex.hpp"
#include "runtime/cancel_run.hpp"
#include "runtime/cancelled.hpp"
#include "runtime/current.hpp"
#include "runtime/multi_wait.hpp"
#include "runtime/process.hpp"
#include "runtime/run_shared.hpp"
#include "runtime/this_process.hpp"
#include "runtime/wait_record.hpp"

namespace kpn {

namespace {

enum class Look { Done, Retry };

// One look at `p`, inside its inspection (after the heavy fence). Sets `take` when this canceller took it
// out of its slot and must ready it.
Look look_at(Process& p, const WaitRecord& record, Process*& take) noexcept {
  const WaitSite* site = record.site();
  if (site == nullptr) return Look::Done;
  if (!site->lock->try_lock()) return Look::Retry;
  Process*& slot = *site->slot;
  if (slot == &p) {
    slot = nullptr;
    if (claim_waiter(&p)) take = &p;
  }
  site->lock->unlock();
  return Look::Done;
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
  std::vector<ProcessId> pending;
  run.table.for_each([&](Process& p) {
    if (!match(context, p)) return;
    p.cancel_requested_.store(true, std::memory_order_release);
    pending.push_back(p.id());
  });
  const std::size_t matched = pending.size();
  std::sort(pending.begin(), pending.end());
  // A process in an interruptible blocking call: the call is told to stop (its token, and the interrupt
  // signal to its thread until it returns); the process unwinds once it has returned, as after any call.
  // After the flags: the process reads its flag when the call returns.
  run.blocking.stop_calls_of(pending);
  std::vector<Process*> inspected;
  std::vector<Process*> taken;
  while (!pending.empty()) {
    inspected.clear();
    taken.clear();
    std::vector<ProcessId> retry;
    run.table.for_each(
        [&](Process& p) {
          if (!std::binary_search(pending.begin(), pending.end(), p.id())) return;
          p.wait_record_.begin_inspection();
          inspected.push_back(&p);
        },
        [&] {
          asymmetric_fence_heavy();  // orders the flags raised above and every begin before the reads
          for (Process* p : inspected) {
            Process* take = nullptr;
            if (look_at(*p, p->wait_record_, take) == Look::Retry) retry.push_back(p->id());
            p->wait_record_.end_inspection();
            if (take != nullptr) taken.push_back(take);
          }
        });
    // Taken out of its slot: this canceller owns it, as a waker would, and it cannot finish meanwhile.
    for (Process* p : taken) unblock(p);
    std::sort(retry.begin(), retry.end());
    pending = std::move(retry);
    if (!pending.empty()) pause_before_retry();
  }
  return matched;
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
    case Query::Id: return q.id != 0 && run.table.had_id(q.id);
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
