#include "runtime/current.hpp"

#include "runtime/stop_state.hpp"
#include "runtime/worker.hpp"

namespace kpn {
namespace {
// initial-exec: libkpn is linked at start-up, never dlopen'ed, so the cheap TLS model is valid.
[[gnu::tls_model("initial-exec")]] thread_local Worker* t_worker = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local int t_worker_index = -1;
[[gnu::tls_model("initial-exec")]] thread_local RunShared* t_run = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local Process* t_process = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local ProcessId t_process_id = 0;
[[gnu::tls_model("initial-exec")]] thread_local const StopState* t_stop = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local bool t_hands_off = false;
[[gnu::tls_model("initial-exec")]] thread_local const std::atomic<bool>* t_cancel = nullptr;
}  // namespace

bool current_run_hands_off() noexcept { return t_hands_off; }

ProcessId current_process_id() noexcept { return t_process_id; }
// t_stop and t_cancel are set whenever t_process_id is (a process runs only on a worker or the teardown
// helper). Acquire on the cancellation flag, as Process::cancel_requested reads it.
ProcessId current_process_id_unless_stopping() noexcept {
  const ProcessId id = t_process_id;
  return id != 0 && !t_stop->stopping() && !t_cancel->load(std::memory_order_acquire) ? id : 0;
}
bool current_run_stopping() noexcept { return t_process_id != 0 && t_stop->stopping(); }

Worker* current_worker() noexcept { return t_worker; }
Process* current_process() noexcept { return t_process; }
int current_worker_index() noexcept { return t_worker_index; }
RunShared* current_run() noexcept { return t_run; }
TraceBuffer* current_trace_buffer() noexcept { return t_worker != nullptr ? t_worker->trace() : nullptr; }

namespace detail {
void set_current_worker(Worker* w, int index, RunShared* run, const StopState* stop, bool hands_off) noexcept {
  t_hands_off = w != nullptr && hands_off;
  t_worker = w;
  t_worker_index = w != nullptr ? index : -1;
  t_run = w != nullptr ? run : nullptr;
  t_stop = w != nullptr ? stop : nullptr;
}
void set_current_process(Process* p, ProcessId id, const std::atomic<bool>* cancel_requested) noexcept {
  t_process = p;
  t_process_id = p != nullptr ? id : 0;
  t_cancel = p != nullptr ? cancel_requested : nullptr;
}
}  // namespace detail

}  // namespace kpn
