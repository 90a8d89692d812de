#include "runtime/pinning.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include <hwloc.h>

namespace kpn {

struct CpuTopology::Impl {
  hwloc_topology_t topo = nullptr;
  ~Impl() {
    if (topo != nullptr) hwloc_topology_destroy(topo);
  }
};

const char* to_string(Place p) noexcept {
  switch (p) {
    case Place::same_core: return "same_core";
    case Place::same_cache: return "same_cache";
    case Place::same_package: return "same_package";
    case Place::same_numa: return "same_numa";
    case Place::other: return "other";
  }
  return "?";
}

namespace {
std::atomic<std::size_t> machine_topology_loads{0};

unsigned count(hwloc_topology_t topo, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(topo, type);
  return n > 0 ? static_cast<unsigned>(n) : 0u;
}
}  // namespace

// This machine's topology, discovered once per program (hwloc_topology_load reads /sys and dlopens hwloc's
// plugins: about 3 ms on a 2-vCPU VM, more on a large machine, at every Runtime otherwise; and under
// ThreadSanitizer every dlopen costs a mapping that is never returned, which a program making thousands of
// Runtimes runs out of). Never modified after the load, so every CpuTopology reads it concurrently, as hwloc
// allows ("Thread Safety" in its manual); the static initialisation publishes it. A load that fails throws and
// is tried again by the next CpuTopology. What is read per CpuTopology, not cached: the program's binding
// (taskset, sched_setaffinity between two Runtimes).
std::shared_ptr<const CpuTopology::Impl> CpuTopology::machine() {
  static const std::shared_ptr<const Impl> machine = [] {
    auto impl = std::make_shared<Impl>();
    if (hwloc_topology_init(&impl->topo) != 0 || hwloc_topology_load(impl->topo) != 0) {
      throw std::runtime_error("hwloc: cannot load the machine topology");
    }
    machine_topology_loads.fetch_add(1, std::memory_order_relaxed);
    return std::shared_ptr<const Impl>(std::move(impl));
  }();
  return machine;
}

CpuTopology::CpuTopology() : CpuTopology(machine(), true) {}

std::size_t CpuTopology::machine_loads() noexcept { return machine_topology_loads.load(std::memory_order_relaxed); }

std::unique_ptr<CpuTopology> CpuTopology::synthetic(const std::string& description) {
  auto impl = std::make_unique<Impl>();
  if (hwloc_topology_init(&impl->topo) != 0) throw std::runtime_error("hwloc: cannot initialise a topology");
  if (hwloc_topology_set_synthetic(impl->topo, description.c_str()) != 0 || hwloc_topology_load(impl->topo) != 0) {
    throw std::invalid_argument("hwloc rejects the synthetic topology '" + description + "'");
  }
  return std::unique_ptr<CpuTopology>(new CpuTopology(std::shared_ptr<const Impl>(std::move(impl)), false));
}

CpuTopology::CpuTopology(std::shared_ptr<const Impl> impl, bool this_system) : impl_(std::move(impl)), this_system_(this_system) {
  hwloc_topology_t topo = impl_->topo;
  // The PUs this program is allowed on: its current binding (taskset, cgroup cpusets) within the
  // topology's allowed set. A synthetic machine is not this one: the program's binding means nothing there.
  hwloc_bitmap_t allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo));
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  if (this_system_ && hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(bound)) {
    hwloc_bitmap_and(allowed, allowed, bound);
  }
  total_pus_ = count(topo, HWLOC_OBJ_PU);
  for (unsigned i = 0; i < total_pus_; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i);
    if (pu != nullptr && hwloc_bitmap_isset(allowed, pu->os_index)) pus_.push_back(static_cast<int>(pu->os_index));
  }
  hwloc_bitmap_free(bound);
  hwloc_bitmap_free(allowed);
  if (pus_.empty()) pus_.push_back(0);
  packages_ = count(topo, HWLOC_OBJ_PACKAGE);
  numa_nodes_ = count(topo, HWLOC_OBJ_NUMANODE);
  cores_ = count(topo, HWLOC_OBJ_CORE);
}

CpuTopology::~CpuTopology() = default;

std::vector<int> CpuTopology::pin_order(PinMode mode) const {
  switch (mode) {
    case PinMode::cores: return cores_first();
    case PinMode::pus: return pus_;
    case PinMode::none: return {};
  }
  return {};
}

std::vector<int> CpuTopology::cores_first() const {
  hwloc_topology_t topo = impl_->topo;
  // Workers take turns between NUMA nodes, or between packages where one NUMA node spans them all.
  const bool by_numa = numa_nodes_ > 1;
  const bool by_package = !by_numa && packages_ > 1;
  const std::size_t domains_n = by_numa ? numa_nodes_ : by_package ? packages_ : 1;
  auto domain_of = [&](hwloc_obj_t pu) -> std::size_t {
    if (by_numa) {
      for (unsigned i = 0; i < numa_nodes_; ++i) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
        if (node != nullptr && hwloc_bitmap_isset(node->cpuset, pu->os_index)) return i;
      }
    } else if (by_package) {
      if (hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu)) {
        return std::min<std::size_t>(pkg->logical_index, domains_n - 1);
      }
    }
    return 0;
  };
  // domain -> its cores in logical order -> each core's allowed PUs in logical order.
  std::vector<std::vector<std::vector<int>>> domains(domains_n);
  std::unordered_map<hwloc_obj_t, std::pair<std::size_t, std::size_t>> where;
  for (int os : pus_) {
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, static_cast<unsigned>(os));
    if (pu == nullptr) return pus_;  // the fallback PU 0 of a machine hwloc could not see: nothing to order
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
    if (core == nullptr) core = pu;  // no core objects: each PU is a core of its own
    auto it = where.find(core);
    if (it == where.end()) {
      const std::size_t d = domain_of(pu);
      domains[d].emplace_back();
      it = where.emplace(core, std::make_pair(d, domains[d].size() - 1)).first;
    }
    domains[it->second.first][it->second.second].push_back(os);
  }
  std::size_t ranks = 0, depth = 0;
  for (const auto& d : domains) {
    depth = std::max(depth, d.size());
    for (const auto& core : d) ranks = std::max(ranks, core.size());
  }
  // Rank r of every core before rank r + 1 of any; within a rank, the k-th core of each domain in turn.
  std::vector<int> order;
  order.reserve(pus_.size());
  for (std::size_t r = 0; r < ranks; ++r) {
    for (std::size_t k = 0; k < depth; ++k) {
      for (const auto& d : domains) {
        if (k < d.size() && r < d[k].size()) order.push_back(d[k][r]);
      }
    }
  }
  return order;
}

Place CpuTopology::place_of(int a, int b) const {
  hwloc_topology_t topo = impl_->topo;
  if (a < 0 || b < 0) return Place::other;
  hwloc_obj_t pa = hwloc_get_pu_obj_by_os_index(topo, static_cast<unsigned>(a));
  hwloc_obj_t pb = hwloc_get_pu_obj_by_os_index(topo, static_cast<unsigned>(b));
  if (pa == nullptr || pb == nullptr) return Place::other;
  if (pa == pb) return Place::same_core;
  hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pa);
  if (core != nullptr && core == hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pb)) return Place::same_core;
  // A cache shared below the package level (an L2 of a core pair, a package's or a die's L3).
  for (hwloc_obj_t o = hwloc_get_common_ancestor_obj(topo, pa, pb);
       o != nullptr && o->type != HWLOC_OBJ_PACKAGE && o->type != HWLOC_OBJ_MACHINE; o = o->parent) {
    if (hwloc_obj_type_is_cache(o->type)) return Place::same_cache;
  }
  hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pa);
  if (pkg != nullptr && pkg == hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pb)) return Place::same_package;
  for (unsigned i = 0; i < numa_nodes_; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
    if (node != nullptr && hwloc_bitmap_isset(node->cpuset, pa->os_index) && hwloc_bitmap_isset(node->cpuset, pb->os_index)) {
      return Place::same_numa;
    }
  }
  return Place::other;
}

bool CpuTopology::pin_current_thread(int pu) const {
  if (!this_system_) return false;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_bitmap_only(set, static_cast<unsigned>(pu));
  const int rc = hwloc_set_cpubind(impl_->topo, set, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(set);
  return rc == 0;
}

}  // namespace kpn
