#pragma once
// The duplicate-name check of a network's processes (NetworkSpec::take_processes): a sort, not a hash set,
// so that building a network of 100,000 processes stays a push per process and the check costs one pass.

#include <optional>
#include <span>
#include <string_view>

#include "runtime/export.hpp"

namespace kpn {

// A name that occurs more than once in `names` (the smallest such by the order below), or nullopt.
//
// Names are sorted by integer keys, not by comparing strings: generated names share a long prefix and
// often a suffix ("stage[17]", "net.worker.17.filter"), so a string comparison's memcmp spent most of its
// time on the bytes every name has (100,000 names "p0" to "p99999": 28 ms by std::sort of string_views, 4
// to 7 ms by keys, docs/performance-log.md, session 54). The keys are the first and the last 8 bytes of what is
// left of a name once the prefix and the suffix common to all of them are cut off, read big-endian; equal
// keys fall back to the length and then to the whole names, so equal names, and only they, end up
// adjacent, whatever the keys collide on.
KPN_EXPORT std::optional<std::string_view> find_duplicate_name(std::span<const std::string_view> names);

}  // namespace kpn
