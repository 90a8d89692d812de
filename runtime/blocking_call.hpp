#pragma once
// kpn::blocking(f): runs f on a kernel thread of the run's blocking pool (blocking_pool.hpp) while the
// calling process is parked, so that its worker runs other processes meanwhile (marl's blocking_call, Go's
// entersyscallblock). For calls that block the kernel thread: file and pipe I/O, a library's synchronous
// API, a sleep in foreign code. Returns what f returns and rethrows what f throws, in the calling process.
//
//   std::string text = kpn::blocking([&] { return read_whole_file(path); });
//
// Outside a process (a plain thread) it just calls f. f runs on another kernel thread: it must not touch
// the caller's channels or call kpn::yield / kpn::sleep_for (a nested kpn::blocking just calls its function).
//
// While the call runs the process is BLOCKED but counts as active, like a sleeper (quiescence.hpp): a
// network waiting for a blocking call is neither finished nor deadlocked. A call cannot be interrupted:
// when the network stops (a failure elsewhere, an interrupt), the run waits for calls in flight (queued
// ones included) to return, then unwinds their processes with the others (f's result is dropped). A call
// made while the network stops does not run f; the process is unwound.

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "runtime/export.hpp"
#include "runtime/this_process.hpp"

namespace kpn {

namespace detail {
// Runs invoke(context) on the run's pool while the calling process is parked. From a process only.
// `invoke` must not throw (it stores f's exception in the context).
KPN_EXPORT void run_blocking(void (*invoke)(void* context) noexcept, void* context);
}  // namespace detail

template <class F>
std::invoke_result_t<F&> blocking(F&& f) {
  using R = std::invoke_result_t<F&>;
  if (!in_process()) return std::invoke(f);
  // The call's frame lives on the parked process's stack; the pool thread writes the result or the
  // exception and then readies the process, which reads them once it runs again (the ready is the publish).
  using Stored = std::conditional_t<std::is_void_v<R>, bool,
                                    std::conditional_t<std::is_reference_v<R>, std::add_pointer_t<R>, R>>;
  using Fn = std::remove_reference_t<F>;
  struct Frame {
    Fn* f;
    std::optional<Stored> result;
    std::exception_ptr error;
  } frame{std::addressof(f), std::nullopt, nullptr};
  auto invoke = [](void* context) noexcept {
    auto& fr = *static_cast<Frame*>(context);
    try {
      if constexpr (std::is_void_v<R>) {
        std::invoke(*fr.f);
        fr.result.emplace(true);
      } else if constexpr (std::is_reference_v<R>) {
        fr.result.emplace(std::addressof(std::invoke(*fr.f)));
      } else {
        fr.result.emplace(std::invoke(*fr.f));
      }
    } catch (...) {
      fr.error = std::current_exception();
    }
  };
  detail::run_blocking(invoke, &frame);
  if (frame.error) std::rethrow_exception(frame.error);
  if constexpr (std::is_void_v<R>) {
    return;
  } else if constexpr (std::is_reference_v<R>) {
    return static_cast<R>(**frame.result);
  } else {
    return std::move(*frame.result);
  }
}

}  // namespace kpn
