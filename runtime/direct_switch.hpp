#pragma once
// The process side of a direct switch (worker_thread.hpp): a parking process asks its worker to switch
// straight to the next process. Its own header, so that the process does not include the worker.

namespace kpn {

class Process;

namespace detail {
// On the stack of `p`, the running process, which is parking with everything its worker's after_switch
// needs already set. True once `p` runs again after a direct switch; false when it must switch to its
// worker's loop instead (WorkerThread::switch_directly says when).
bool switch_directly(Process& p);
}  // namespace detail

}  // namespace kpn
