// A test-only policy that places and orders processes at random (Go's randomizeScheduler in spirit): one
// shared pool, and a worker takes a uniformly random process from it. Kahn determinism and exactly-once
// delivery must hold under any schedule, so the tests that check them run under this policy too (it is
// registered by the test binary, and kpn::test::all_configs() takes every registered policy).

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <sched.h>

#include "runtime/process.hpp"
#include "runtime/scheduler_registry.hpp"
#include "runtime/worker.hpp"

namespace {

class RandomPolicy final : public kpn::Scheduler {
 public:
  std::string_view name() const noexcept override { return "random"; }
  void start(kpn::SchedulerContext&) override {
    std::lock_guard g(mutex_);
    pool_.clear();
    rng_ = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) | 1;
  }
  void on_spawn(kpn::Process& p, kpn::Worker*) override { put(p); }
  void on_unblock(kpn::Process& p, kpn::Worker*) override { put(p); }
  void on_yield(kpn::Process& p, kpn::Worker&) override { put(p); }
  kpn::Process* pick_next(kpn::Worker&) override {
    std::lock_guard g(mutex_);
    if (pool_.empty()) return nullptr;
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    const std::size_t i = static_cast<std::size_t>(rng_ % pool_.size());
    kpn::Process* p = pool_[i];
    pool_[i] = pool_.back();
    pool_.pop_back();
    return p;
  }
  void on_idle(kpn::Worker&) override { sched_yield(); }

 private:
  void put(kpn::Process& p) {
    std::lock_guard g(mutex_);
    pool_.push_back(&p);
  }
  std::mutex mutex_;  // guards pool_ and rng_
  std::vector<kpn::Process*> pool_;
  std::uint64_t rng_ = 1;
};

const kpn::SchedulerRegistration random_policy{
    "random", "test only: every process in one pool, a worker takes one at random",
    [] { return std::make_unique<RandomPolicy>(); }};

}  // namespace
