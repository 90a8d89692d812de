#include "runtime/current.hpp"

#include "runtime/worker.hpp"

namespace kpn {
namespace {
// initial-exec: libkpn is linked at start-up, never dlopen'ed, so the cheap TLS model is valid.
[[gnu::tls_model("initial-exec")]] thread_local Worker* t_worker = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local Process* t_process = nullptr;
}  // namespace

Worker* current_worker() noexcept { return t_worker; }
Process* current_process() noexcept { return t_process; }
int current_worker_index() noexcept { return t_worker != nullptr ? t_worker->index() : -1; }

namespace detail {
void set_current_worker(Worker* w) noexcept { t_worker = w; }
void set_current_process(Process* p) noexcept { t_process = p; }
}  // namespace detail

}  // namespace kpn
