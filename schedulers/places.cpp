#include "schedulers/places.hpp"

#include <algorithm>

namespace kpn {

Places compute_places(const CpuTopology* topology, std::span<const int> worker_pus) {
  const std::size_t n = worker_pus.size();
  Places places;
  places.victims.resize(n);
  places.group_end.resize(n);
  for (std::size_t w = 0; w < n; ++w) {
    std::array<std::vector<std::size_t>, kPlaces> groups;
    for (std::size_t v = 0; v < n; ++v) {
      if (v == w) continue;
      const bool placed = topology != nullptr && worker_pus[w] >= 0 && worker_pus[v] >= 0;
      const Place p = placed ? topology->place_of(worker_pus[w], worker_pus[v]) : Place::other;
      groups[static_cast<std::size_t>(p)].push_back(v);
    }
    auto& order = places.victims[w];
    order.reserve(n > 0 ? n - 1 : 0);
    for (std::size_t l = 0; l < groups.size(); ++l) {
      order.insert(order.end(), groups[l].begin(), groups[l].end());
      places.group_end[w][l] = order.size();
    }
  }
  return places;
}

}  // namespace kpn
