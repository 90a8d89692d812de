#pragma once
// The runtime's logger: spdlog, named "kpn", writing to stderr, at level "warn" unless the environment
// variable KPN_LOG_LEVEL (trace, debug, info, warn, error, off) or set_log_level says otherwise.
// Nothing on a hot path logs at info or above.

#include <string_view>

#include <spdlog/logger.h>

#include "runtime/export.hpp"

namespace kpn {

KPN_EXPORT spdlog::logger& log();
// Accepts spdlog's level names; throws std::invalid_argument on anything else.
KPN_EXPORT void set_log_level(std::string_view level);

}  // namespace kpn
