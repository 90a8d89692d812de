#include "networks/yaml_loader.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "networks/limits.hpp"
#include "networks/names.hpp"
#include "networks/suggest.hpp"
#include "networks/topology_error.hpp"

namespace kpn {
namespace {

const std::vector<std::string> kTopKeys = {"network", "description", "params", "processes", "channels"};
const std::vector<std::string> kProcessKeys = {"kind", "args", "replicas", "stack_size", "cpu", "priority", "rank", "weight"};
const std::vector<std::string> kChannelKeys = {"from", "to", "capacity", "shift", "wrap", "count"};

class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  Topology load(std::string_view text) {
    Topology t;
    t.file = file_;
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      diags_.error(at(e.mark), "malformed YAML: " + e.msg + hint(e.msg));
      diags_.throw_if_any();
    }
    if (!root.IsMap()) {
      diags_.error(root.IsDefined() ? at(root.Mark()) : Location{file_, 1, 1},
                   "expected a map with keys 'network', 'params', 'processes' and 'channels'");
      diags_.throw_if_any();
    }
    check_keys(root, kTopKeys, "top level");
    if (auto n = root["network"]) {
      if (auto s = scalar(n, "'network'")) t.name = s->text;
    } else {
      diags_.error(at(root.Mark()), "missing key 'network' (the network's name)");
    }
    if (auto d = root["description"]) scalar(d, "'description'");
    if (auto p = root["params"]) load_params(p, t);
    if (auto p = root["processes"]) {
      load_processes(p, t);
    } else {
      diags_.error(at(root.Mark()), "missing key 'processes'");
    }
    if (auto c = root["channels"]) load_channels(c, t);
    t.load_errors = diags_.list();
    return t;
  }

 private:
  // yaml-cpp's message for `{ from: st[0].out }` says nothing of the cause: in a flow map '[' opens a list.
  static std::string hint(const std::string& msg) {
    if (msg.find("end of map flow not found") == std::string::npos &&
        msg.find("end of sequence flow not found") == std::string::npos) {
      return "";
    }
    return " (inside { } or [ ], a value holding '[', ']', ',' or '{' must be quoted: write \"st[0].in\", "
           "not st[0].in)";
  }

  Location at(const YAML::Mark& m) const {
    if (m.is_null()) return Location{file_, 0, 0};
    return Location{file_, m.line + 1, m.column + 1};
  }

  void check_keys(const YAML::Node& map, const std::vector<std::string>& valid, const std::string& where) {
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        diags_.error(at(kv.first.Mark()), fmt::format("{}: keys must be plain names", where));
        continue;
      }
      const std::string key = kv.first.Scalar();
      if (!is_valid_utf8(key)) {
        diags_.error(at(kv.first.Mark()), fmt::format("{}: a key is not valid UTF-8", where));
        continue;
      }
      if (!seen.insert(key).second) {
        diags_.error(at(kv.first.Mark()), fmt::format("{}: key '{}' appears twice", where, key));
      }
      if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
        diags_.error(at(kv.first.Mark()), fmt::format("{}: unknown key '{}'{}; valid keys: {}", where, key,
                                                      did_you_mean(key, valid), fmt::join(valid, ", ")));
      }
    }
  }

  std::optional<Scalar> scalar(const YAML::Node& n, const std::string& what) {
    if (!n.IsScalar()) {
      diags_.error(at(n.Mark()), fmt::format("{} must be a single value, not a {}", what,
                                             n.IsMap() ? "map" : n.IsSequence() ? "list" : "null"));
      return std::nullopt;
    }
    if (!is_valid_utf8(n.Scalar())) {
      diags_.error(at(n.Mark()), fmt::format("{} is not valid UTF-8", what));
      return std::nullopt;
    }
    return Scalar{n.Scalar(), at(n.Mark())};
  }

  // Reports and returns false unless `name` is valid UTF-8 of at most kMaxNameLength bytes: a name past
  // these must not travel further (into messages, reports, DOT).
  bool readable_name(const std::string& name, const Location& where, const std::string& what) {
    if (!is_valid_utf8(name)) {
      diags_.error(where, fmt::format("{} is not valid UTF-8", what));
      return false;
    }
    if (name.size() > limits::kMaxNameLength) {
      diags_.error(where, fmt::format("{} '{}' is too long: {} bytes; the limit is {}", what, excerpt(name), name.size(),
                                      limits::kMaxNameLength));
      return false;
    }
    return true;
  }

  void load_params(const YAML::Node& node, Topology& t) {
    if (!node.IsMap()) {
      diags_.error(at(node.Mark()), "'params' must be a map of names to default values");
      return;
    }
    std::set<std::string> seen;
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      if (!readable_name(name, at(kv.first.Mark()), "a parameter name")) continue;
      if (!is_name(name, true)) diags_.error(at(kv.first.Mark()), fmt::format("'{}' is not a valid parameter name", name));
      if (!seen.insert(name).second) {
        diags_.error(at(kv.first.Mark()), fmt::format("parameter '{}' is defined twice", name));
        continue;
      }
      if (auto s = scalar(kv.second, fmt::format("parameter '{}'", name))) {
        if (s->is_param()) {
          diags_.error(s->where, fmt::format("parameter '{}': a default cannot refer to another parameter", name));
        }
        t.params.push_back(ParamDecl{name, *s});
      }
    }
  }

  void load_processes(const YAML::Node& node, Topology& t) {
    if (!node.IsMap()) {
      diags_.error(at(node.Mark()), "'processes' must be a map of process names to their settings");
      return;
    }
    std::set<std::string> seen;
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      const Location where = at(kv.first.Mark());
      if (!readable_name(name, where, "a process name")) continue;
      if (!is_name(name, false)) {
        diags_.error(where, fmt::format("'{}' is not a valid process name (letters, digits, '_' and '-')", name));
      }
      if (!seen.insert(name).second) {
        diags_.error(where, fmt::format("duplicate process name '{}'", name));
        continue;
      }
      const YAML::Node& body = kv.second;
      if (!body.IsMap()) {
        diags_.error(at(body.Mark()), fmt::format("process '{}' must be a map with at least 'kind'", name));
        t.unreadable_processes.insert(name);
        continue;
      }
      check_keys(body, kProcessKeys, fmt::format("process '{}'", name));
      ProcessDecl p;
      p.name = name;
      p.where = where;
      if (auto k = body["kind"]) {
        if (auto s = scalar(k, fmt::format("process '{}': 'kind'", name))) p.kind = *s;
      } else {
        diags_.error(where, fmt::format("process '{}': missing key 'kind'", name));
      }
      if (auto a = body["args"]) {
        if (!a.IsMap()) {
          diags_.error(at(a.Mark()), fmt::format("process '{}': 'args' must be a map of argument names to values", name));
        } else {
          for (const auto& arg : a) {
            const std::string an = arg.first.Scalar();
            if (!readable_name(an, at(arg.first.Mark()), fmt::format("process '{}': an argument name", name))) continue;
            if (p.args.count(an) != 0) {
              diags_.error(at(arg.first.Mark()), fmt::format("process '{}': argument '{}' given twice", name, an));
              continue;
            }
            if (auto s = scalar(arg.second, fmt::format("process '{}': argument '{}'", name, an))) {
              p.args.emplace(an, *s);
              p.arg_keys.emplace(an, at(arg.first.Mark()));
            }
          }
        }
      }
      if (auto r = body["replicas"]) p.replicas = scalar(r, fmt::format("process '{}': 'replicas'", name));
      if (auto s = body["stack_size"]) p.stack_size = scalar(s, fmt::format("process '{}': 'stack_size'", name));
      if (auto c = body["cpu"]) p.cpu = scalar(c, fmt::format("process '{}': 'cpu'", name));
      if (auto r = body["priority"]) p.priority = scalar(r, fmt::format("process '{}': 'priority'", name));
      if (auto r = body["rank"]) {
        if (r.IsSequence()) {
          // rank: [r0, r1, ...]: one entry per replica (resolve.cpp checks the count).
          p.rank_list_where = at(r.Mark());
          if (r.size() == 0) diags_.error(p.rank_list_where, fmt::format("process '{}': 'rank' is an empty list; give one rank per replica", name));
          std::size_t i = 0;
          for (const auto& e : r) {
            if (auto s = scalar(e, fmt::format("process '{}': 'rank' entry {}", name, i))) p.rank_list.push_back(*s);
            ++i;
          }
        } else {
          p.rank = scalar(r, fmt::format("process '{}': 'rank'", name));
        }
      }
      if (auto w = body["weight"]) {
        if (w.IsSequence()) {
          // weight: [w0, w1, ...]: one entry per replica (resolve.cpp checks the count).
          p.weight_list_where = at(w.Mark());
          if (w.size() == 0) diags_.error(p.weight_list_where, fmt::format("process '{}': 'weight' is an empty list; give one weight per replica", name));
          std::size_t i = 0;
          for (const auto& e : w) {
            if (auto s = scalar(e, fmt::format("process '{}': 'weight' entry {}", name, i))) p.weight_list.push_back(*s);
            ++i;
          }
        } else {
          p.weight = scalar(w, fmt::format("process '{}': 'weight'", name));
        }
      }
      t.processes.push_back(std::move(p));
    }
  }

  std::optional<PortRef> port_ref(const YAML::Node& n, const char* side) {
    auto s = scalar(n, fmt::format("channel '{}'", side));
    if (!s) return std::nullopt;
    // Three names and an index at most: longer text is refused before it is looked at.
    if (s->text.size() > 3 * limits::kMaxNameLength + 8) {
      diags_.error(s->where, fmt::format("channel '{}': '{}' is too long for a port reference: {} bytes", side,
                                         excerpt(s->text), s->text.size()));
      return std::nullopt;
    }
    const auto parts = parse_port_ref(s->text);
    if (!parts) {
      diags_.error(s->where, fmt::format("channel '{}': expected 'process.port' or 'process[index].port', got '{}'",
                                         side, excerpt(s->text)));
      return std::nullopt;
    }
    for (std::string_view part : {parts->process, parts->port}) {
      if (part.size() > limits::kMaxNameLength) {
        diags_.error(s->where, fmt::format("channel '{}': the name '{}' is too long: {} bytes; the limit is {}", side,
                                           excerpt(part), part.size(), limits::kMaxNameLength));
        return std::nullopt;
      }
    }
    PortRef r;
    r.process = std::string(parts->process);
    if (parts->index) r.replica = Scalar{std::string(*parts->index), s->where};
    r.port = std::string(parts->port);
    r.where = s->where;
    return r;
  }

  void load_channels(const YAML::Node& node, Topology& t) {
    if (!node.IsSequence()) {
      diags_.error(at(node.Mark()), "'channels' must be a list of {from: process.port, to: process.port, ...}");
      return;
    }
    for (const auto& c : node) {
      if (!c.IsMap()) {
        diags_.error(at(c.Mark()), "a channel must be a map with 'from' and 'to'");
        continue;
      }
      check_keys(c, kChannelKeys, "channel");
      ChannelDecl d;
      d.where = at(c.Mark());
      std::optional<PortRef> from, to;
      if (auto f = c["from"]) from = port_ref(f, "from");
      else diags_.error(d.where, "channel: missing key 'from'");
      if (auto f = c["to"]) to = port_ref(f, "to");
      else diags_.error(d.where, "channel: missing key 'to'");
      if (auto v = c["capacity"]) d.capacity = scalar(v, "channel 'capacity'");
      if (auto v = c["shift"]) d.shift = scalar(v, "channel 'shift'");
      if (auto v = c["wrap"]) d.wrap = scalar(v, "channel 'wrap'");
      if (auto v = c["count"]) d.count = scalar(v, "channel 'count'");
      if (from && to) {
        d.from = std::move(*from);
        d.to = std::move(*to);
        t.channels.push_back(std::move(d));
      } else {
        t.unreadable_channels = true;
      }
    }
  }

  std::string file_;
  Diagnostics diags_;
};

}  // namespace

Topology read_topology(std::string_view yaml, const std::string& file) { return Loader(file).load(yaml); }

Topology parse_topology(std::string_view yaml, const std::string& file) {
  Topology t = read_topology(yaml, file);
  if (!t.load_errors.empty()) throw TopologyError(t.load_errors);
  return t;
}

Topology read_topology_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw TopologyError({Diagnostic{Location{path, 0, 0}, "is a directory, not a topology file"}});
  }
  std::ifstream in(path);
  if (!in) throw TopologyError({Diagnostic{Location{path, 0, 0}, "cannot open the file"}});
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw TopologyError({Diagnostic{Location{path, 0, 0}, "cannot read the file"}});
  return read_topology(ss.str(), path);
}

Topology load_topology_file(const std::string& path) {
  Topology t = read_topology_file(path);
  if (!t.load_errors.empty()) throw TopologyError(t.load_errors);
  return t;
}

}  // namespace kpn
