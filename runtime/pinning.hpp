#pragma once
// The machine's processing units, from hwloc, and pinning a kernel thread to one of them.

#include <memory>
#include <vector>

namespace kpn {

class CpuTopology {
 public:
  CpuTopology();
  ~CpuTopology();
  CpuTopology(const CpuTopology&) = delete;
  CpuTopology& operator=(const CpuTopology&) = delete;

  // OS indexes of the processing units this program may run on, in topology order (so consecutive
  // workers share caches before they share nothing).
  const std::vector<int>& allowed_pus() const noexcept { return pus_; }
  // Binds the calling thread to processing unit `pu` (an OS index). Returns false if the OS refused.
  bool pin_current_thread(int pu) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<int> pus_;
};

}  // namespace kpn
