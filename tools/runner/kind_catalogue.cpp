#include "tools/runner/kind_catalogue.hpp"

#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "networks/kinds.hpp"
#include "runtime/json.hpp"
#include "runtime/scheduler_registry.hpp"

#ifndef KPN_VERSION
#error "KPN_VERSION must be defined by the build (tools/CMakeLists.txt, from project(kpn VERSION ...))"
#endif

namespace kpn_run {
namespace {

std::string json_value(const kpn::Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>) return kpn::json_string(x);
        else if constexpr (std::is_same_v<T, double>) return fmt::format("{}", x);  // finite: parse_value refuses others
        else return fmt::format("{}", x);
      },
      v);
}

}  // namespace

std::string catalogue() {
  std::string s = "\nSchedulers:\n";
  for (const auto& sch : kpn::scheduler_list()) s += fmt::format("  {:<24} {}\n", sch.name, sch.description);
  s += "\nProcess kinds (kpn-run --kinds describes their ports and arguments):\n";
  for (const kpn::KindSpec* k : kpn::kind_list()) s += fmt::format("  {}\n", k->name);
  s += "\nExit status: 0 success, 1 the network failed at run time, 2 bad command line or file,\n"
       "130 / 143 stopped by SIGINT / SIGTERM (after printing the report so far).\n";
  return s;
}

std::string describe_kinds() {
  std::string s;
  for (const kpn::KindSpec* k : kpn::kind_list()) {
    s += fmt::format("{}\n  {}\n", k->name, k->description);
    for (const auto& p : k->ports) {
      s += fmt::format("  port {:<10} {} {}{}{}\n", p.name, p.dir == kpn::PortDir::In ? "in " : "out", p.type,
                       p.array ? "[]" : "", p.description.empty() ? "" : "  " + p.description);
    }
    for (const auto& a : k->args) {
      s += fmt::format("  arg  {:<10} {}{}{}\n", a.name, kpn::to_string(a.type),
                       a.default_value ? " = " + kpn::value_to_string(*a.default_value) : " (required)",
                       a.description.empty() ? "" : "  " + a.description);
    }
    s += "\n";
  }
  return s;
}

std::string describe_kinds_json() {
  std::string s = fmt::format("{{\"kpn_version\":{},\"kinds\":[", kpn::json_string(KPN_VERSION));
  bool first_kind = true;
  for (const kpn::KindSpec* k : kpn::kind_list()) {
    s += fmt::format("{}{{\"name\":{},\"description\":{},\"ports\":[", first_kind ? "" : ",", kpn::json_string(k->name),
                     kpn::json_string(k->description));
    first_kind = false;
    for (std::size_t i = 0; i < k->ports.size(); ++i) {
      const auto& p = k->ports[i];
      s += fmt::format("{}{{\"name\":{},\"direction\":\"{}\",\"type\":{},\"array\":{},\"description\":{}}}", i ? "," : "",
                       kpn::json_string(p.name), p.dir == kpn::PortDir::In ? "in" : "out", kpn::json_string(p.type),
                       p.array ? "true" : "false", kpn::json_string(p.description));
    }
    s += "],\"args\":[";
    for (std::size_t i = 0; i < k->args.size(); ++i) {
      const auto& a = k->args[i];
      s += fmt::format("{}{{\"name\":{},\"type\":\"{}\",\"required\":{},\"default\":{},\"description\":{}}}", i ? "," : "",
                       kpn::json_string(a.name), kpn::to_string(a.type), a.default_value ? "false" : "true",
                       a.default_value ? json_value(*a.default_value) : "null", kpn::json_string(a.description));
    }
    s += "]}";
  }
  return kpn::utf8_sanitized(s + "]}\n");
}

}  // namespace kpn_run
