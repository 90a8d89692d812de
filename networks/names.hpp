#pragma once
// The lexical rules for names in a topology file (parameters, processes, ports) and for port references
// (`process.port`, `process[index].port`), checked by plain scans: a regular-expression matcher recurses
// once per character and overflows the stack on names of a few tens of thousands of characters.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kpn {

// A name: a letter or '_', then letters, digits, '_', '-' (and '.' where `allow_dot`). Length unchecked.
bool is_name(std::string_view s, bool allow_dot) noexcept;

// The parts of a port reference, as views into the text it was parsed from.
struct PortRefParts {
  std::string_view process;
  std::optional<std::string_view> index;  // a decimal integer (maybe negative) or a `$parameter`
  std::string_view port;
};
std::optional<PortRefParts> parse_port_ref(std::string_view s) noexcept;

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates, or code points past U+10FFFF).
bool is_valid_utf8(std::string_view s) noexcept;

// `s` for an error message: at most `max` bytes of it, cut at a UTF-8 boundary, with the length in bytes when cut.
std::string excerpt(std::string_view s, std::size_t max = 40);

}  // namespace kpn
