#include "runtime/current.hpp"

#include "runtime/process.hpp"
#include "runtime/worker.hpp"

namespace kpn {
namespace {
// initial-exec: libkpn is linked at start-up, never dlopen'ed, so the cheap TLS model is valid.
[[gnu::tls_model("initial-exec")]] thread_local Worker* t_worker = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local int t_worker_index = -1;
[[gnu::tls_model("initial-exec")]] thread_local RunShared* t_run = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local Process* t_process = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local bool t_hands_off = false;
}  // namespace

bool current_run_hands_off() noexcept { return t_hands_off; }

Worker* current_worker_of(const RunShared& run, Process*& running) noexcept {
  if (t_run != &run) {
    running = nullptr;
    return nullptr;
  }
  running = t_process;
  return t_worker;
}

ProcessId current_process_id() noexcept {
  const Process* p = t_process;
  return p != nullptr ? p->id() : 0;
}
// The running process's fields are in the cache of this thread (it is running), so the look costs no miss;
// switching processes stores one thread-local instead of three.
ProcessId current_process_id_unless_stopping() noexcept {
  const Process* p = t_process;
  return p != nullptr && !p->must_unwind() ? p->id() : 0;
}
bool current_run_stopping() noexcept {
  const Process* p = t_process;
  return p != nullptr && p->stopping();
}

Worker* current_worker() noexcept { return t_worker; }
Process* current_process() noexcept { return t_process; }
int current_worker_index() noexcept { return t_worker_index; }
RunShared* current_run() noexcept { return t_run; }
TraceBuffer* current_trace_buffer() noexcept { return t_worker != nullptr ? t_worker->trace() : nullptr; }

namespace detail {
void set_current_worker(Worker* w, int index, RunShared* run, bool hands_off) noexcept {
  t_hands_off = w != nullptr && hands_off;
  t_worker = w;
  t_worker_index = w != nullptr ? index : -1;
  t_run = w != nullptr ? run : nullptr;
}
void set_current_process(Process* p) noexcept { t_process = p; }
}  // namespace detail

}  // namespace kpn
