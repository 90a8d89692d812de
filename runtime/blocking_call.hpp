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
// network waiting for a blocking call is neither finished nor deadlocked. When the network stops (a
// failure elsewhere, an interrupt), the run waits for calls in flight (queued ones included) to return,
// then unwinds their processes with the others (f's result is dropped). A call made while the network
// stops does not run f; the process is unwound.
//
// An interruptible call: f takes a std::stop_token.
//
//   kpn::blocking([&](std::stop_token stop) { write_all(fd, data, stop); });
//
// When the network stops, the token's stop is requested (std::stop_callback functions run then, on the
// thread in Runtime::run), and the pool thread running f is sent SIGURG every few milliseconds until f
// returns (call_interrupt.hpp): a system call f is blocked in returns EINTR, and f, seeing the stop, gives
// up (returns or throws: either way the result is dropped). The same when the calling process is cancelled
// (cancel.hpp), for its call alone; the stop callbacks then run on the cancelling thread. A call whose f
// takes no token is never signalled.

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "runtime/export.hpp"
#include "runtime/this_process.hpp"

namespace kpn {

namespace detail {
// Runs invoke(context, token) on the run's pool while the calling process is parked. From a process only.
// `invoke` must not throw (it stores f's exception in the context). `interruptible`: the token is the
// run's stop (its thread may be signalled when the run stops); otherwise it is a token that never stops.
KPN_EXPORT void run_blocking(void (*invoke)(void* context, std::stop_token stop) noexcept, void* context,
                             bool interruptible);

template <class F>
inline constexpr bool kTakesStopToken = std::is_invocable_v<F&, std::stop_token>;

template <class F>
using BlockingResult =
    typename std::conditional_t<kTakesStopToken<F>, std::invoke_result<F&, std::stop_token>,
                                std::invoke_result<F&>>::type;

template <class F>
decltype(auto) invoke_blocking(F& f, std::stop_token stop) {
  if constexpr (kTakesStopToken<F>) {
    return std::invoke(f, std::move(stop));
  } else {
    (void)stop;
    return std::invoke(f);
  }
}
}  // namespace detail

template <class F>
detail::BlockingResult<std::remove_reference_t<F>> blocking(F&& f) {
  using Fn = std::remove_reference_t<F>;
  using R = detail::BlockingResult<Fn>;
  if (!in_process()) return detail::invoke_blocking(f, std::stop_token{});
  // The call's frame lives on the parked process's stack; the pool thread writes the result or the
  // exception and then readies the process, which reads them once it runs again (the ready is the publish).
  using Stored = std::conditional_t<std::is_void_v<R>, bool,
                                    std::conditional_t<std::is_reference_v<R>, std::add_pointer_t<R>, R>>;
  struct Frame {
    Fn* f;
    std::optional<Stored> result;
    std::exception_ptr error;
  } frame{std::addressof(f), std::nullopt, nullptr};
  auto invoke = [](void* context, std::stop_token stop) noexcept {
    auto& fr = *static_cast<Frame*>(context);
    try {
      if constexpr (std::is_void_v<R>) {
        detail::invoke_blocking(*fr.f, std::move(stop));
        fr.result.emplace(true);
      } else if constexpr (std::is_reference_v<R>) {
        fr.result.emplace(std::addressof(detail::invoke_blocking(*fr.f, std::move(stop))));
      } else {
        fr.result.emplace(detail::invoke_blocking(*fr.f, std::move(stop)));
      }
    } catch (...) {
      fr.error = std::current_exception();
    }
  };
  detail::run_blocking(invoke, &frame, detail::kTakesStopToken<Fn>);
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
