#pragma once
// Encoding a string as a JSON string literal (quotes and escapes included).

#include <string>
#include <string_view>

namespace kpn {

std::string json_string(std::string_view s);

}  // namespace kpn
