#include "runtime/signal_mask.hpp"

#include <initializer_list>

#include <pthread.h>

namespace kpn {

AsyncSignalsBlocked::AsyncSignalsBlocked() noexcept {
  sigset_t async;
  sigemptyset(&async);
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGPIPE}) sigaddset(&async, sig);
  pthread_sigmask(SIG_BLOCK, &async, &saved_);
}

AsyncSignalsBlocked::~AsyncSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

}  // namespace kpn
