#include "networks/names.hpp"

#include <fmt/format.h>

#include "runtime/json.hpp"

namespace kpn {
namespace {

bool is_letter(char c) noexcept { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_space(char c) noexcept { return c == ' ' || c == '\t'; }

// Length of the longest name at the start of `s` (0 if none).
std::size_t name_prefix(std::string_view s, bool allow_dot) noexcept {
  if (s.empty() || !is_letter(s[0])) return 0;
  std::size_t i = 1;
  while (i < s.size() && (is_letter(s[i]) || is_digit(s[i]) || s[i] == '-' || (allow_dot && s[i] == '.'))) ++i;
  return i;
}

bool is_index(std::string_view s) noexcept {
  if (!s.empty() && s[0] == '$') return is_name(s.substr(1), true);
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_digit(c)) return false;
  }
  return true;
}

}  // namespace

bool is_name(std::string_view s, bool allow_dot) noexcept {
  return !s.empty() && name_prefix(s, allow_dot) == s.size();
}

std::optional<PortRefParts> parse_port_ref(std::string_view s) noexcept {
  PortRefParts r;
  const std::size_t p = name_prefix(s, false);
  if (p == 0) return std::nullopt;
  r.process = s.substr(0, p);
  s.remove_prefix(p);
  if (!s.empty() && s[0] == '[') {
    const std::size_t close = s.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view index = s.substr(1, close - 1);
    while (!index.empty() && is_space(index.front())) index.remove_prefix(1);
    while (!index.empty() && is_space(index.back())) index.remove_suffix(1);
    if (!is_index(index)) return std::nullopt;
    r.index = index;
    s.remove_prefix(close + 1);
  }
  if (s.empty() || s[0] != '.') return std::nullopt;
  s.remove_prefix(1);
  if (!is_name(s, false)) return std::nullopt;
  r.port = s;
  return r;
}

bool is_valid_utf8(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_at(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string excerpt(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} bytes)", s.substr(0, cut), s.size());
}

}  // namespace kpn
