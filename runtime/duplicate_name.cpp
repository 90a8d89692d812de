#include "runtime/duplicate_name.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kpn {
namespace {

struct Key {
  std::uint64_t tail;  // the last up to 8 bytes of the name's middle, big-endian
  std::uint64_t head;  // the first up to 8 bytes of its middle
  std::string_view name;
};

std::uint64_t big_endian(std::string_view bytes) noexcept {
  std::uint64_t v = 0;
  for (const char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return v;
}

// How many leading (or, with `from_end`, trailing) bytes every name shares, at most the shortest's length.
std::size_t common_bytes(std::span<const std::string_view> names, bool from_end) noexcept {
  const std::string_view first = names.front();
  std::size_t n = first.size();
  for (const std::string_view name : names) {
    n = std::min(n, name.size());
    std::size_t k = 0;
    if (from_end) {
      while (k < n && name[name.size() - 1 - k] == first[first.size() - 1 - k]) ++k;
    } else {
      while (k < n && name[k] == first[k]) ++k;
    }
    n = k;
    if (n == 0) break;
  }
  return n;
}

}  // namespace

std::optional<std::string_view> find_duplicate_name(std::span<const std::string_view> names) {
  if (names.size() < 2) return std::nullopt;
  const std::size_t prefix = common_bytes(names, false);
  // The suffix may overlap the prefix in the shortest name: then that name's middle is empty.
  const std::size_t suffix = common_bytes(names, true);
  std::vector<Key> keys;
  keys.reserve(names.size());
  for (const std::string_view name : names) {
    const std::size_t begin = std::min(prefix, name.size());
    const std::size_t end = std::max(begin, name.size() - std::min(suffix, name.size()));
    const std::string_view middle = name.substr(begin, end - begin);
    const std::size_t k = std::min<std::size_t>(8, middle.size());
    keys.push_back({big_endian(middle.substr(middle.size() - k)), big_endian(middle.substr(0, k)), name});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.tail != b.tail) return a.tail < b.tail;
    if (a.head != b.head) return a.head < b.head;
    if (a.name.size() != b.name.size()) return a.name.size() < b.name.size();
    return a.name < b.name;
  });
  for (std::size_t i = 1; i < keys.size(); ++i) {
    if (keys[i].name == keys[i - 1].name) return keys[i].name;
  }
  return std::nullopt;
}

}  // namespace kpn
