#include "networks/topology_builder.hpp"

#include <algorithm>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "networks/limits.hpp"
#include "networks/names.hpp"

namespace kpn {
namespace {

Location location_of(const SourceLine& w) {
  return Location{w.file, static_cast<int>(w.line), 0};
}

// A name as the loader accepts it (yaml_loader.cpp): at most kMaxNameLength bytes of valid UTF-8, and
// of the name's lexical form. False (with the reason in `errors`) otherwise.
bool check_name(const std::string& name, bool allow_dot, const Location& where, const char* what, std::vector<Diagnostic>& errors) {
  if (name.size() > limits::kMaxNameLength || !is_valid_utf8(name) || !is_name(name, allow_dot)) {
    errors.push_back(Diagnostic{where, fmt::format("'{}' is not a valid {} (a letter or '_', then letters, digits, '_' and '-'; "
                                                   "at most {} bytes)", excerpt(name), what, limits::kMaxNameLength)});
    return false;
  }
  return true;
}

}  // namespace

TopologyValue::TopologyValue(std::int64_t v) : text_(std::to_string(v)) {}
TopologyValue::TopologyValue(double v) : text_(fmt::format("{}", v)) {}
TopologyValue::TopologyValue(bool v) : text_(v ? "true" : "false") {}

using ProcessSettings = TopologyBuilder::ProcessSettings;
using ChannelSettings = TopologyBuilder::ChannelSettings;

ProcessSettings& ProcessSettings::arg(const std::string& name, const TopologyValue& value) {
  decl_.args[name] = at(value);
  decl_.arg_keys[name] = decl_.where;
  return *this;
}
ProcessSettings& ProcessSettings::replicas(const TopologyValue& n) { decl_.replicas = at(n); return *this; }
ProcessSettings& ProcessSettings::stack_size(const TopologyValue& bytes) { decl_.stack_size = at(bytes); return *this; }
ProcessSettings& ProcessSettings::cpu(const TopologyValue& worker) { decl_.cpu = at(worker); return *this; }
ProcessSettings& ProcessSettings::priority(const TopologyValue& p) { decl_.priority = at(p); return *this; }

ProcessSettings& ProcessSettings::rank(const TopologyValue& r) {
  decl_.rank = at(r);
  decl_.rank_list.clear();
  return *this;
}

ProcessSettings& ProcessSettings::ranks(const std::vector<int>& per_replica) {
  decl_.rank.reset();
  decl_.rank_list.clear();
  for (int r : per_replica) decl_.rank_list.push_back(at(r));
  decl_.rank_list_where = decl_.where;
  return *this;
}

ProcessSettings& ProcessSettings::weight(const TopologyValue& w) {
  decl_.weight = at(w);
  decl_.weight_list.clear();
  return *this;
}

ProcessSettings& ProcessSettings::weights(const std::vector<double>& per_replica) {
  decl_.weight.reset();
  decl_.weight_list.clear();
  for (double w : per_replica) decl_.weight_list.push_back(at(w));
  decl_.weight_list_where = decl_.where;
  return *this;
}

ChannelSettings& ChannelSettings::capacity(const TopologyValue& n) { decl_.capacity = at(n); return *this; }
ChannelSettings& ChannelSettings::shift(const TopologyValue& n) { decl_.shift = at(n); return *this; }
ChannelSettings& ChannelSettings::wrap(const TopologyValue& w) { decl_.wrap = at(w); return *this; }
ChannelSettings& ChannelSettings::count(const TopologyValue& n) { decl_.count = at(n); return *this; }

TopologyBuilder::TopologyBuilder(std::string name, SourceLine where) {
  head_.name = std::move(name);
  head_.file = where.file;
}

TopologyBuilder& TopologyBuilder::param(const std::string& name, const TopologyValue& value, SourceLine where) {
  const Location at = location_of(where);
  if (!check_name(name, true, at, "parameter name", head_.load_errors)) return *this;
  auto same = [&name](const ParamDecl& p) { return p.name == name; };
  if (std::any_of(head_.params.begin(), head_.params.end(), same)) {
    head_.load_errors.push_back(Diagnostic{at, fmt::format("duplicate parameter '{}'", name)});
    return *this;
  }
  head_.params.push_back(ParamDecl{name, Scalar{value.text(), at}});
  return *this;
}

ProcessSettings& TopologyBuilder::process(const std::string& name, const std::string& kind, SourceLine where) {
  ProcessDecl& d = process_decls_.emplace_back();
  d.name = name;
  d.where = location_of(where);
  d.kind = Scalar{kind, d.where};
  const bool valid = check_name(name, false, d.where, "process name", head_.load_errors);
  const auto same = [&name](const ProcessDecl& p) { return p.name == name; };
  if (valid && std::count_if(process_decls_.begin(), process_decls_.end(), same) > 1) {
    head_.load_errors.push_back(Diagnostic{d.where, fmt::format("duplicate process name '{}'", name)});
  }
  return processes_.emplace_back(d);
}

ChannelSettings& TopologyBuilder::channel(const std::string& from, const std::string& to, SourceLine where) {
  ChannelDecl& d = channel_decls_.emplace_back();
  d.where = location_of(where);
  bool ok = true;
  for (auto [text, ref, side] : {std::tuple{&from, &d.from, "from"}, std::tuple{&to, &d.to, "to"}}) {
    const auto parts = text->size() <= 3 * limits::kMaxNameLength + 8 ? parse_port_ref(*text) : std::nullopt;
    if (!parts) {
      head_.load_errors.push_back(Diagnostic{d.where, fmt::format("channel '{}': expected 'process.port' or 'process[index].port', "
                                                                  "got '{}'", side, excerpt(*text))});
      ok = false;
      continue;
    }
    ref->process = std::string(parts->process);
    if (parts->index) ref->replica = Scalar{std::string(*parts->index), d.where};
    ref->port = std::string(parts->port);
    ref->where = d.where;
  }
  if (!ok) head_.unreadable_channels = true;
  return channels_.emplace_back(d);
}

Topology TopologyBuilder::topology() const {
  Topology t = head_;
  t.processes.assign(process_decls_.begin(), process_decls_.end());
  // A channel with an unreadable side is left out, as the loader leaves it out (its error is in load_errors).
  for (const ChannelDecl& c : channel_decls_) {
    if (!c.from.process.empty() && !c.to.process.empty()) t.channels.push_back(c);
  }
  // A duplicate process stays out too: the first declaration of the name is the one resolved.
  std::vector<ProcessDecl> unique;
  for (const ProcessDecl& p : t.processes) {
    const auto same = [&p](const ProcessDecl& q) { return q.name == p.name; };
    if (std::none_of(unique.begin(), unique.end(), same)) unique.push_back(p);
  }
  t.processes = std::move(unique);
  return t;
}

}  // namespace kpn
