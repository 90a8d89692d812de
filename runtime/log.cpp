#include "runtime/log.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace kpn {
namespace {

spdlog::level::level_enum parse_level(std::string_view name) {
  const auto level = spdlog::level::from_str(std::string(name));
  // spdlog maps unknown names to "off"; only the literal "off" may mean off.
  if (level == spdlog::level::off && name != "off") {
    throw std::invalid_argument(
        fmt::format("unknown log level '{}' (expected trace, debug, info, warn, error, critical or off)", name));
  }
  return level;
}

std::shared_ptr<spdlog::logger> make_logger() {
  auto logger = spdlog::stderr_color_mt("kpn");
  logger->set_pattern("[kpn %l] %v");
  logger->set_level(spdlog::level::warn);
  if (const char* env = std::getenv("KPN_LOG_LEVEL"); env != nullptr && *env != '\0') {
    try {
      logger->set_level(parse_level(env));
    } catch (const std::invalid_argument& e) {
      logger->warn("KPN_LOG_LEVEL ignored: {}", e.what());
    }
  }
  return logger;
}

}  // namespace

spdlog::logger& log() {
  static const std::shared_ptr<spdlog::logger> logger = make_logger();
  return *logger;
}

void set_log_level(std::string_view level) { log().set_level(parse_level(level)); }

}  // namespace kpn
