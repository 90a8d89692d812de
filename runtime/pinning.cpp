#include "runtime/pinning.hpp"

#include <stdexcept>

#include <hwloc.h>

namespace kpn {

struct CpuTopology::Impl {
  hwloc_topology_t topo = nullptr;
  ~Impl() {
    if (topo != nullptr) hwloc_topology_destroy(topo);
  }
};

CpuTopology::CpuTopology() : impl_(std::make_unique<Impl>()) {
  if (hwloc_topology_init(&impl_->topo) != 0 || hwloc_topology_load(impl_->topo) != 0) {
    throw std::runtime_error("hwloc: cannot load the machine topology");
  }
  // The PUs this program is allowed on: its current binding (taskset, cgroup cpusets) within the
  // topology's allowed set.
  hwloc_bitmap_t allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(impl_->topo));
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(impl_->topo, bound, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(bound)) {
    hwloc_bitmap_and(allowed, allowed, bound);
  }
  const int n = hwloc_get_nbobjs_by_type(impl_->topo, HWLOC_OBJ_PU);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(impl_->topo, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    if (pu != nullptr && hwloc_bitmap_isset(allowed, pu->os_index)) pus_.push_back(static_cast<int>(pu->os_index));
  }
  hwloc_bitmap_free(bound);
  hwloc_bitmap_free(allowed);
  if (pus_.empty()) pus_.push_back(0);
}

CpuTopology::~CpuTopology() = default;

bool CpuTopology::pin_current_thread(int pu) const {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_bitmap_only(set, static_cast<unsigned>(pu));
  const int rc = hwloc_set_cpubind(impl_->topo, set, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(set);
  return rc == 0;
}

}  // namespace kpn
