#pragma once
// The machine's processing units, from hwloc: the order workers are pinned in, how near two PUs are
// (Pheet's places, for thieves that look nearby first), and pinning a kernel thread to one PU.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runtime/export.hpp"
#include "runtime/pin_mode.hpp"

namespace kpn {

// How near two processing units are, nearest first (the order a places-aware thief tries its victims in).
enum class Place : int {
  same_core = 0,     // hyperthread siblings (or the same PU, when workers share one)
  same_cache = 1,    // a cache (L2, L3, ...) holds both, below their package
  same_package = 2,  // the same socket
  same_numa = 3,     // the same NUMA node's memory, in different packages
  other = 4,         // the rest of the machine
};
inline constexpr int kPlaces = 5;
KPN_EXPORT const char* to_string(Place p) noexcept;

class KPN_EXPORT CpuTopology {
 public:
  // This machine, restricted to the PUs this program may run on (taskset, cgroup cpusets). The machine's
  // structure is discovered once per program and shared by every CpuTopology; the program's binding is read
  // again by each.
  CpuTopology();
  // A made-up machine in hwloc's synthetic syntax ("pack:2 core:4 pu:2"), for tests: every PU is allowed,
  // and pin_current_thread always fails (its PUs need not exist). Throws std::invalid_argument if hwloc
  // rejects the description.
  static std::unique_ptr<CpuTopology> synthetic(const std::string& description);
  ~CpuTopology();
  CpuTopology(const CpuTopology&) = delete;
  CpuTopology& operator=(const CpuTopology&) = delete;

  // OS indexes of the processing units this program may run on, in hwloc's logical order (siblings of a
  // core are consecutive): the `pus` pin order.
  const std::vector<int>& allowed_pus() const noexcept { return pus_; }
  // The allowed PUs in the order workers are pinned to them under `mode` (PinMode::none: empty).
  std::vector<int> pin_order(PinMode mode) const;
  // How near PUs `a` and `b` (OS indexes) are. A PU hwloc does not know counts as `other`.
  Place place_of(int a, int b) const;

  // What the machine has (the whole topology, not only the allowed part).
  unsigned packages() const noexcept { return packages_; }
  unsigned numa_nodes() const noexcept { return numa_nodes_; }
  unsigned cores() const noexcept { return cores_; }
  unsigned total_pus() const noexcept { return total_pus_; }

  // Binds the calling thread to processing unit `pu` (an OS index). Returns false if the OS refused.
  bool pin_current_thread(int pu) const;

  // How many times this program has discovered the machine's topology: 1 once any CpuTopology() has been
  // made (a load that failed and threw counts nothing).
  static std::size_t machine_loads() noexcept;

 private:
  struct Impl;
  static std::shared_ptr<const Impl> machine();
  CpuTopology(std::shared_ptr<const Impl> impl, bool this_system);
  std::vector<int> cores_first() const;

  std::shared_ptr<const Impl> impl_;
  bool this_system_;
  std::vector<int> pus_;
  unsigned packages_ = 0, numa_nodes_ = 0, cores_ = 0, total_pus_ = 0;
};

}  // namespace kpn
