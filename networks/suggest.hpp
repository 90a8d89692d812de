#pragma once
// "Did you mean ...?" for unknown names.

#include <string>
#include <string_view>
#include <vector>

namespace kpn {

// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo; else "".
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);
// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace kpn
