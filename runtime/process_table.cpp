#include "runtime/process_table.hpp"

#include <algorithm>

#include "runtime/process.hpp"

namespace kpn {

ProcessTable::ProcessTable(unsigned workers) : shards_(std::make_unique<Shard[]>(workers + 1)), count_(workers + 1) {}

void ProcessTable::insert(Process& p, int worker) {
  const unsigned shard = worker >= 0 && static_cast<unsigned>(worker) + 1 < count_ ? static_cast<unsigned>(worker)
                                                                                    : count_ - 1;
  Shard& s = shards_[shard];
  // Set before the process is shared: it is read only by its retirement, after the policy got it from here.
  p.table_shard_ = shard;
  std::lock_guard g(s.mutex);
  p.table_next_ = s.head;
  if (s.head != nullptr) s.head->table_prev_ = &p;
  s.head = &p;
  s.live.store(s.live.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void ProcessTable::retire(Process& p, int home) {
  Shard& s = shards_[p.table_shard_];
  std::lock_guard g(s.mutex);
  if (p.table_prev_ != nullptr) p.table_prev_->table_next_ = p.table_next_;
  else s.head = p.table_next_;
  if (p.table_next_ != nullptr) p.table_next_->table_prev_ = p.table_prev_;
  s.finished.push_back(Finished{p.id(), p.name(), p.cpu_ticks(), p.switches(), p.last_worker(), home, p.cancelled_});
  // Release: a reader that sees the lower count sees the record (Runtime::live_processes, then the report).
  s.live.store(s.live.load(std::memory_order_relaxed) - 1, std::memory_order_release);
}

std::int64_t ProcessTable::live() const noexcept {
  std::int64_t total = 0;
  for (unsigned i = 0; i < count_; ++i) total += shards_[i].live.load(std::memory_order_acquire);
  return total;
}

std::vector<std::unique_lock<std::mutex>> ProcessTable::lock_all() const {
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(count_);
  for (unsigned i = 0; i < count_; ++i) locks.emplace_back(shards_[i].mutex);
  return locks;
}

bool ProcessTable::had_name(std::string_view name) const {
  for (unsigned i = 0; i < count_; ++i) {
    const Shard& s = shards_[i];
    std::lock_guard g(s.mutex);
    for (const Process* p = s.head; p != nullptr; p = p->table_next_) {
      if (p->name() == name) return true;
    }
    for (const Finished& f : s.finished) {
      if (f.name == name) return true;
    }
  }
  return false;
}

Process* ProcessTable::any() {
  for (unsigned i = 0; i < count_; ++i) {
    std::lock_guard g(shards_[i].mutex);
    if (shards_[i].head != nullptr) return shards_[i].head;
  }
  return nullptr;
}

void ProcessTable::for_each(const std::function<void(Process&)>& visit, const std::function<void()>& after) {
  const auto locks = lock_all();
  for (unsigned i = 0; i < count_; ++i) {
    for (Process* p = shards_[i].head; p != nullptr; p = p->table_next_) visit(*p);
  }
  if (after) after();
}

std::vector<ProcessReport> ProcessTable::finished_reports(double ticks_per_s) const {
  std::vector<ProcessReport> out;
  const auto locks = lock_all();
  // Sorted by id through (id, record) keys: 16 bytes a swap instead of a report with its name (the sort of
  // the reports themselves was a quarter of a 200,000-process run's time).
  std::size_t total = 0;
  for (unsigned i = 0; i < count_; ++i) total += shards_[i].finished.size();
  std::vector<std::pair<std::uint64_t, const Finished*>> order;
  order.reserve(total);
  for (unsigned i = 0; i < count_; ++i) {
    for (const Finished& f : shards_[i].finished) order.emplace_back(f.id, &f);
  }
  std::sort(order.begin(), order.end());
  out.reserve(total);
  for (const auto& [id, f] : order) {
    out.push_back(ProcessReport{f->id, f->name, static_cast<double>(f->cpu_ticks) / ticks_per_s, f->switches,
                                f->last_worker, f->home_worker, f->cancelled});
  }
  return out;
}

}  // namespace kpn
