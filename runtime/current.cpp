#include "runtime/current.hpp"

#include "runtime/worker.hpp"

namespace kpn {
namespace {
// initial-exec: libkpn is linked at start-up, never dlopen'ed, so the cheap TLS model is valid.
[[gnu::tls_model("initial-exec")]] thread_local Worker* t_worker = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local int t_worker_index = -1;
[[gnu::tls_model("initial-exec")]] thread_local RunShared* t_run = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local Process* t_process = nullptr;
}  // namespace

Worker* current_worker() noexcept { return t_worker; }
Process* current_process() noexcept { return t_process; }
int current_worker_index() noexcept { return t_worker_index; }
RunShared* current_run() noexcept { return t_run; }
TraceBuffer* current_trace_buffer() noexcept { return t_worker != nullptr ? t_worker->trace() : nullptr; }

namespace detail {
void set_current_worker(Worker* w, int index, RunShared* run) noexcept {
  t_worker = w;
  t_worker_index = w != nullptr ? index : -1;
  t_run = w != nullptr ? run : nullptr;
}
void set_current_process(Process* p) noexcept { t_process = p; }
}  // namespace detail

}  // namespace kpn
