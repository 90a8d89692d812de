#include "networks/value.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace kpn {

std::string_view to_string(ArgType t) noexcept {
  switch (t) {
    case ArgType::Int: return "integer";
    case ArgType::Float: return "number";
    case ArgType::Bool: return "boolean";
    case ArgType::String: return "string";
  }
  return "?";
}

std::string value_to_string(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>) return x;
        else return fmt::format("{}", x);
      },
      v);
}

std::optional<Value> parse_value(std::string_view text, ArgType type) {
  switch (type) {
    case ArgType::Int: {
      std::int64_t x = 0;
      const char* end = text.data() + text.size();
      auto [p, ec] = std::from_chars(text.data(), end, x);
      if (ec != std::errc() || p != end || text.empty()) return std::nullopt;
      return Value{x};
    }
    case ArgType::Float: {
      double x = 0;
      const char* end = text.data() + text.size();
      auto [p, ec] = std::from_chars(text.data(), end, x);
      if (ec != std::errc() || p != end || text.empty() || !std::isfinite(x)) return std::nullopt;
      return Value{x};
    }
    case ArgType::Bool:
      if (text == "true") return Value{true};
      if (text == "false") return Value{false};
      return std::nullopt;
    case ArgType::String:
      return Value{std::string(text)};
  }
  return std::nullopt;
}

}  // namespace kpn
