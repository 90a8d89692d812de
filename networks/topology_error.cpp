#include "networks/topology_error.hpp"

namespace kpn {
namespace {
std::string join(const std::vector<Diagnostic>& list) {
  std::string s;
  for (const auto& d : list) {
    if (!s.empty()) s += '\n';
    s += d.str();
  }
  return s;
}
}  // namespace

TopologyError::TopologyError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace kpn
