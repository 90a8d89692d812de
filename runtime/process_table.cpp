#include "runtime/process_table.hpp"

#include <algorithm>

#include "runtime/process.hpp"

namespace kpn {

void ProcessTable::insert(Process& p) {
  std::lock_guard g(mutex_);
  p.table_next_ = head_;
  if (head_ != nullptr) head_->table_prev_ = &p;
  head_ = &p;
}

void ProcessTable::retire(Process& p, int home) {
  std::lock_guard g(mutex_);
  if (p.table_prev_ != nullptr) p.table_prev_->table_next_ = p.table_next_;
  else head_ = p.table_next_;
  if (p.table_next_ != nullptr) p.table_next_->table_prev_ = p.table_prev_;
  finished_.push_back(Finished{p.id(), p.name(), p.cpu_ticks(), p.switches(), p.last_worker(), home, p.cancelled_});
}

bool ProcessTable::had_name(std::string_view name) const {
  std::lock_guard g(mutex_);
  for (const Process* p = head_; p != nullptr; p = p->table_next_) {
    if (p->name() == name) return true;
  }
  for (const Finished& f : finished_) {
    if (f.name == name) return true;
  }
  return false;
}

Process* ProcessTable::any() {
  std::lock_guard g(mutex_);
  return head_;
}

void ProcessTable::for_each(const std::function<void(Process&)>& visit, const std::function<void()>& after) {
  std::lock_guard g(mutex_);
  for (Process* p = head_; p != nullptr; p = p->table_next_) visit(*p);
  if (after) after();
}

std::vector<ProcessReport> ProcessTable::finished_reports(double ticks_per_s) const {
  std::vector<ProcessReport> out;
  std::lock_guard g(mutex_);
  // Sorted by id through (id, index) keys: 16 bytes a swap instead of a report with its name (the sort of
  // the reports themselves was a quarter of a 200,000-process run's time).
  std::vector<std::pair<std::uint64_t, std::size_t>> order;
  order.reserve(finished_.size());
  for (std::size_t i = 0; i < finished_.size(); ++i) order.emplace_back(finished_[i].id, i);
  std::sort(order.begin(), order.end());
  out.reserve(finished_.size());
  for (const auto& [id, i] : order) {
    const Finished& f = finished_[i];
    out.push_back(ProcessReport{f.id, f.name, static_cast<double>(f.cpu_ticks) / ticks_per_s, f.switches,
                                f.last_worker, f.home_worker, f.cancelled});
  }
  return out;
}

}  // namespace kpn
