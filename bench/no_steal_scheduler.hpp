#pragma once
// A policy for measurements only: ws-last without stealing. Initial processes are dealt round-robin to the
// workers and stay there (an unblocked process goes back to the worker it last ran on, a spawned one to its
// spawner's worker), so two processes started on a 2-worker runtime are held on different workers for the
// whole run. It uses the runtime's internal Worker and RunQueue, which are not a public API.

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include <sched.h>

#include "runtime/process.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/worker.hpp"

namespace kpn_bench {

class NoStealScheduler final : public kpn::Scheduler {
 public:
  std::string_view name() const noexcept override { return "ws-last-nosteal"; }
  void start(std::span<kpn::Worker* const> workers) override {
    workers_.assign(workers.begin(), workers.end());
    next_initial_ = 0;
  }
  void on_spawn(kpn::Process& p, kpn::Worker* spawner) override {
    if (spawner != nullptr) {
      spawner->queue().push_front(&p);
      return;
    }
    workers_[next_initial_]->queue().push_back(&p);
    next_initial_ = (next_initial_ + 1) % workers_.size();
  }
  void on_unblock(kpn::Process& p, kpn::Worker*) override {
    workers_[p.last_worker >= 0 ? static_cast<std::size_t>(p.last_worker) : 0]->queue().push_front(&p);
  }
  void on_yield(kpn::Process& p, kpn::Worker& w) override { w.queue().push_back(&p); }
  kpn::Process* pick_next(kpn::Worker& w) override { return w.queue().pop_front(); }
  void on_idle(kpn::Worker&) override { sched_yield(); }

 private:
  std::vector<kpn::Worker*> workers_;
  std::size_t next_initial_ = 0;
};

}  // namespace kpn_bench
