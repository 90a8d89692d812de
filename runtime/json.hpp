#pragma once
// Encoding a string as a JSON string literal (quotes and escapes included), and making text valid UTF-8
// so that JSON built from outside data (names from files, values from the command line) is valid JSON text.

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/export.hpp"

namespace kpn {

KPN_EXPORT std::string json_string(std::string_view s);

// The length (1 to 4) of the well-formed UTF-8 sequence that starts at s[i], or 0 if there is none there
// (a stray continuation byte, a truncated or overlong sequence, a surrogate, a code point past U+10FFFF).
inline std::size_t utf8_sequence_at(std::string_view s, std::size_t i) noexcept {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  char32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 1, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 2, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 3, cp = c & 0x07;
  } else {
    return 0;
  }
  if (s.size() - i <= n) return 0;
  for (std::size_t k = 1; k <= n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n + 1;
}

// `s` with every byte that is not part of a well-formed UTF-8 sequence replaced by U+FFFD. JSON text must
// be UTF-8 (RFC 8259, section 8.1); json_string() copies bytes >= 0x80 as they are, so run the finished
// document through this when any part of it came from outside.
inline std::string utf8_sanitized(std::string_view s) {
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (const std::size_t n = utf8_sequence_at(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += kReplacement;  // one per bad byte: resynchronise at the next one
      ++i;
    }
  }
  return out;
}

}  // namespace kpn
