#pragma once
// Typed values of kind arguments, and parsing a scalar's text as one.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "runtime/export.hpp"

namespace kpn {

enum class ArgType { Int, Float, Bool, String };

using Value = std::variant<std::int64_t, double, bool, std::string>;

KPN_EXPORT std::string_view to_string(ArgType t) noexcept;
KPN_EXPORT std::string value_to_string(const Value& v);

// Parses `text` as `type`: a decimal integer, a finite number (1.5, 1e6), true or false, or any string.
// nullopt if the text is not one.
KPN_EXPORT std::optional<Value> parse_value(std::string_view text, ArgType type);

}  // namespace kpn
