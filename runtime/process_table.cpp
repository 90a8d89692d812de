#include "runtime/process_table.hpp"

#include <algorithm>

#include "runtime/config.hpp"
#include "runtime/process.hpp"

namespace kpn {

static_assert(config::kMaxCpus + 1 <= 0xFFFF, "Process::table_shard_ holds a shard's index in 16 bits");

ProcessTable::ProcessTable(unsigned workers) : shards_(std::make_unique<Shard[]>(workers + 1)), count_(workers + 1) {}

void ProcessTable::insert(Process& p, int worker) {
  const unsigned shard = worker >= 0 && static_cast<unsigned>(worker) + 1 < count_ ? static_cast<unsigned>(worker)
                                                                                    : count_ - 1;
  Shard& s = shards_[shard];
  // Set before the process is shared: it is read only by its retirement, after the policy got it from here.
  p.table_shard_ = static_cast<std::uint16_t>(shard);
  std::lock_guard g(s.mutex);
  p.table_next_ = s.head;
  if (s.head != nullptr) s.head->table_prev_ = &p;
  s.head = &p;
  s.live.store(s.live.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  ++s.inserted;
}

std::uint64_t ProcessTable::inserted() const {
  std::uint64_t total = 0;
  for (unsigned i = 0; i < count_; ++i) {
    std::lock_guard g(shards_[i].mutex);
    total += shards_[i].inserted;
  }
  return total;
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

bool ProcessTable::had(const std::function<bool(std::string_view, ProcessId)>& match) const {
  for (unsigned i = 0; i < count_; ++i) {
    const Shard& s = shards_[i];
    std::lock_guard g(s.mutex);
    for (const Process* p = s.head; p != nullptr; p = p->table_next_) {
      if (match(p->name(), p->id())) return true;
    }
    for (const Finished& f : s.finished) {
      if (match(f.name, f.id)) return true;
    }
  }
  return false;
}

bool ProcessTable::had_name(std::string_view name) const {
  return had([name](std::string_view n, ProcessId) { return n == name; });
}

bool ProcessTable::had_id(ProcessId id) const {
  return had([id](std::string_view, ProcessId i) { return i == id; });
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
  std::size_t total = 0;
  ProcessId low = ~ProcessId{0}, high = 0;
  for (unsigned i = 0; i < count_; ++i) {
    total += shards_[i].finished.size();
    for (const Finished& f : shards_[i].finished) {
      low = std::min(low, f.id);
      high = std::max(high, f.id);
    }
  }
  std::vector<const Finished*> order;
  if (total > 0 && high - low < 2 * total + 4096) {
    // Ids are dense (given in sequence, a worker's unused reserve at most missing: config::kWorkerIdBlock), so
    // each record goes straight to its slot: linear, where sorting was a sixth of a 400,000-process run.
    std::vector<const Finished*> slots(high - low + 1, nullptr);
    for (unsigned i = 0; i < count_; ++i) {
      for (const Finished& f : shards_[i].finished) slots[f.id - low] = &f;
    }
    order.reserve(total);
    for (const Finished* f : slots) {
      if (f != nullptr) order.push_back(f);
    }
  } else {
    order.reserve(total);
    for (unsigned i = 0; i < count_; ++i) {
      for (const Finished& f : shards_[i].finished) order.push_back(&f);
    }
    std::sort(order.begin(), order.end(), [](const Finished* a, const Finished* b) { return a->id < b->id; });
  }
  out.reserve(total);
  for (const Finished* f : order) {
    out.push_back(ProcessReport{f->id, f->name, static_cast<double>(f->cpu_ticks) / ticks_per_s, f->switches,
                                f->last_worker, f->home_worker, f->cancelled});
  }
  return out;
}

}  // namespace kpn
