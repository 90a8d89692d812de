#include "distributed/network_source.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "networks/yaml_loader.hpp"

namespace kpn::distributed {
namespace {

// FNV-1a, each part preceded by its length: no two lists of parts hash alike by shifting bytes.
class Fnv {
 public:
  void mix(std::string_view s) {
    for (int i = 0; i < 8; ++i) byte(static_cast<unsigned char>(static_cast<std::uint64_t>(s.size()) >> (8 * i)));
    for (unsigned char c : s) byte(c);
  }
  std::uint64_t value() const noexcept { return h_; }

 private:
  void byte(unsigned char c) {
    h_ ^= c;
    h_ *= 1099511628211ull;
  }
  std::uint64_t h_ = 1469598103934665603ull;
};

std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--set: expected key=value, got '" + s + "'");
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

}  // namespace

std::uint64_t network_hash(const std::string& file, const std::vector<std::string>& sets) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::invalid_argument(fmt::format("cannot read '{}'", file));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Fnv h;
  h.mix(bytes);
  for (const auto& s : sets) h.mix(s);
  return h.value();
}

std::uint64_t network_hash(const ResolvedNetwork& net) {
  Fnv h;
  h.mix(net.name);
  for (const auto& [name, value] : net.params) {
    h.mix(name);
    h.mix(value);
  }
  for (const ResolvedProcess& p : net.processes) {
    h.mix(p.name);
    h.mix(p.kind != nullptr ? p.kind->name : "");
    for (const auto& [name, value] : *p.args) {
      h.mix(name);
      h.mix(value_to_string(value));
    }
    h.mix(fmt::format("{} {} {} {} {} {} {}", p.options.stack_size, p.options.home_worker, p.options.priority, p.rank.value_or(-1),
                      p.rank_round_robin, p.weight.value_or(0.0), p.replicas));
  }
  for (const ResolvedChannel& c : net.channels) {
    h.mix(c.name);
    h.mix(fmt::format("{}.{} {}.{} {} {}", c.from, c.from_port, c.to, c.to_port, c.capacity, c.type));
  }
  return h.value();
}

NetworkSource file_source(std::string file, std::vector<std::string> sets) {
  NetworkSource s;
  s.what = fmt::format("'{}' and the --set values", file);
  s.fingerprint = [file, sets] { return network_hash(file, sets); };
  s.resolve = [file, sets] { return resolve(read_topology_file(file), parse_sets(sets)); };
  return s;
}

NetworkSource topology_source(Topology topology, std::vector<std::pair<std::string, std::string>> overrides) {
  NetworkSource s;
  s.what = fmt::format("the network '{}' (built in {})", topology.name, topology.file);
  s.resolve = [topology = std::move(topology), overrides = std::move(overrides)] { return resolve(topology, overrides); };
  return s;
}

}  // namespace kpn::distributed
