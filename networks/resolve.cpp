#include "networks/resolved.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "networks/limits.hpp"
#include "networks/message_types.hpp"
#include "networks/suggest.hpp"
#include "networks/topology_error.hpp"
#include "runtime/config.hpp"

namespace kpn {
namespace {

// One side of a channel declaration: the process instances it names (`count` consecutive indexes into the
// expanded processes from `first`) and whether it adapts its size to the other side (an array port of a
// single, unreplicated process). Kept as a range so that a declaration is counted before it is expanded.
struct Side {
  std::size_t first = 0;
  std::size_t count = 0;
  bool flexible = false;
};

// A channel declaration checked and counted, waiting to be expanded into `channels` channels.
struct ChannelPlan {
  const ChannelDecl* decl = nullptr;
  const PortSpec* from_port = nullptr;
  const PortSpec* to_port = nullptr;
  Side from;
  Side to;
  std::size_t capacity = 1;
  std::int64_t count = 1;  // between two flexible sides
  std::int64_t shift = 0;
  bool wrap = true;
  std::size_t channels = 0;
};

struct Param {
  std::string value;
  std::string origin;  // "its default at file:line:col" or "--set name=value"
  bool from_set = false;
};

class Resolver {
 public:
  Resolver(const Topology& t, const std::vector<std::pair<std::string, std::string>>& overrides, const ResolveLimits& limits)
      : t_(t), overrides_(overrides), limits_(limits) {}

  ResolvedNetwork run() {
    for (const auto& d : t_.load_errors) diags_.error(d.where, d.message);
    out_.name = t_.name;
    out_.file = t_.file;
    resolve_params();
    // Everything is checked and counted first; expansion allocates only once the limits are known to hold.
    std::size_t processes = 0;
    for (const auto& p : t_.processes) {
      declare_process(p, processes);
      if (processes > limits_.processes) {
        diags_.error(p.where, fmt::format("process '{}': its replicas bring the network to {} processes; the limit "
                                          "is {}", p.name, processes, limits_.processes));
        diags_.throw_if_any();
      }
    }
    std::vector<ChannelPlan> plans;
    std::size_t channels = 0;
    for (const auto& c : t_.channels) {
      // A declaration that failed was reported (or its process was); the ports it names are not also
      // "not connected".
      auto plan = plan_channel(c);
      if (!plan) {
        failed_ports_.emplace(c.from.process, c.from.port);
        failed_ports_.emplace(c.to.process, c.to.port);
        continue;
      }
      channels += plan->channels;
      if (channels > limits_.channels) {
        diags_.error(c.where, fmt::format("channel {}.{} -> {}.{}: its {} channels bring the network to {}; the limit "
                                          "is {}", c.from.process, c.from.port, c.to.process, c.to.port,
                                          plan->channels, channels, limits_.channels));
        diags_.throw_if_any();
      }
      plans.push_back(*plan);
    }
    out_.processes.reserve(processes);
    for (const auto& p : t_.processes) expand_process(p);
    out_.channels.reserve(channels);
    for (const auto& plan : plans) expand_channel(plan);
    check_connections();
    diags_.throw_if_any();
    for (const auto& p : t_.params) out_.params.emplace_back(p.name, params_.at(p.name).value);
    return std::move(out_);
  }

 private:
  void resolve_params() {
    std::vector<std::string> names;
    for (const auto& p : t_.params) {
      params_[p.name] = Param{p.value.text, "its default at " + p.value.where.str(), false};
      names.push_back(p.name);
    }
    for (const auto& [name, value] : overrides_) {
      auto it = params_.find(name);
      if (it == params_.end()) {
        diags_.error(Location{"--set " + name + "=" + value, 0, 0},
                     fmt::format("'{}' is not a parameter of {}{}; its parameters are: {}", name, t_.file,
                                 did_you_mean(name, names), names.empty() ? "(none)" : fmt::format("{}", fmt::join(names, ", "))));
        continue;
      }
      it->second = Param{value, "--set " + name + "=" + value, true};
    }
  }

  // A scalar as a typed value; reports and returns nullopt if it cannot be one.
  std::optional<Value> value(const Scalar& s, ArgType type, const std::string& what) {
    std::string text = s.text;
    std::string origin;
    if (s.is_param()) {
      auto it = params_.find(s.param_name());
      if (it == params_.end()) {
        std::vector<std::string> names;
        for (const auto& [n, p] : params_) names.push_back(n);
        diags_.error(s.where, fmt::format("{}: undefined parameter '{}'{}", what, s.text, did_you_mean(s.param_name(), names)));
        return std::nullopt;
      }
      text = it->second.value;
      origin = fmt::format(" (parameter '{}', from {})", s.param_name(), it->second.origin);
    }
    auto v = parse_value(text, type);
    if (!v) diags_.error(s.where, fmt::format("{}: expected {} {}, got '{}'{}", what, type == ArgType::Int ? "an" : "a", to_string(type), text, origin));
    return v;
  }

  std::optional<std::int64_t> bounded_int(const Scalar& s, const std::string& what, std::int64_t lo, std::int64_t hi) {
    auto v = value(s, ArgType::Int, what);
    if (!v) return std::nullopt;
    const std::int64_t x = std::get<std::int64_t>(*v);
    if (x < lo || x > hi) {
      diags_.error(s.where, fmt::format("{}: {} is out of range [{}, {}]{}", what, x, lo, hi, origin_of(s)));
      return std::nullopt;
    }
    return x;
  }

  // Where a value came from when it was not written where it is used: " (from --set capacity=0)", or
  // " (from $capacity, its default at t.yaml:2:3)"; empty for a literal.
  std::string origin_of(const Scalar& s) const {
    if (!s.is_param()) return "";
    auto it = params_.find(s.param_name());
    if (it == params_.end()) return "";
    if (it->second.from_set) return fmt::format(" (from {})", it->second.origin);
    return fmt::format(" (from {}, {})", s.text, it->second.origin);
  }

  // What `rank:` says of a declaration's replicas: ranks empty (no `rank:`), one rank for every replica,
  // or one per replica (a list, a range A..B dealt round-robin); or round_robin (replica mod the run's
  // rank count, resolved at placement). wheres parallels ranks (the list's entries), or holds one location.
  struct RankRule {
    std::vector<int> ranks;
    std::vector<Location> wheres;
    bool round_robin = false;
    std::string range;
  };

  // `rank:` of declaration d with `replicas` replicas (0 if their count is in error): an integer, `A..B`,
  // `round-robin` (each possibly through a parameter) or a list of integers, one per replica.
  RankRule rank_rule(const ProcessDecl& d, int replicas) {
    RankRule rule;
    const std::string what = fmt::format("process '{}': rank", d.name);
    if (!d.rank_list.empty()) {
      for (std::size_t i = 0; i < d.rank_list.size(); ++i) {
        auto r = bounded_int(d.rank_list[i], fmt::format("{} entry {}", what, i), 0, limits::kMaxRank);
        if (!r) return {};
        rule.ranks.push_back(static_cast<int>(*r));
        rule.wheres.push_back(d.rank_list[i].where);
      }
      if (replicas > 0 && rule.ranks.size() != static_cast<std::size_t>(replicas)) {
        diags_.error(d.rank_list_where,
                     fmt::format("{}: a list of {} rank{} for {} replica{}; give one rank per replica, or deal them with "
                                 "a range (rank: A..B) or rank: round-robin",
                                 what, rule.ranks.size(), rule.ranks.size() == 1 ? "" : "s", replicas, replicas == 1 ? "" : "s"));
        return {};
      }
      return rule;
    }
    if (!d.rank) return rule;
    const Scalar& s = *d.rank;
    std::string text = s.text;
    if (s.is_param()) {
      auto v = value(s, ArgType::String, what);
      if (!v) return {};
      text = std::get<std::string>(*v);
    }
    const auto expected = [&] {
      diags_.error(s.where, fmt::format("{}: expected an integer 0 to {}, a range A..B (replicas dealt over ranks A to B), "
                                        "round-robin (over every rank) or a list of integers, got '{}'{}",
                                        what, limits::kMaxRank, text, origin_of(s)));
      return RankRule{};
    };
    if (text == "round-robin") {
      rule.round_robin = true;
      rule.wheres.push_back(s.where);
      return rule;
    }
    if (const auto dots = text.find(".."); dots != std::string::npos) {
      const auto first = parse_value(text.substr(0, dots), ArgType::Int);
      const auto last = parse_value(text.substr(dots + 2), ArgType::Int);
      if (!first || !last) return expected();
      const std::int64_t a = std::get<std::int64_t>(*first);
      const std::int64_t b = std::get<std::int64_t>(*last);
      if (a < 0 || b > limits::kMaxRank || a > b) {
        diags_.error(s.where, fmt::format("{}: the range {} must run upwards within [0, {}]{}", what, text, limits::kMaxRank, origin_of(s)));
        return {};
      }
      // Replica i on rank a + i mod (b - a + 1): consecutive replicas on consecutive ranks, as mpirun deals ranks.
      for (int i = 0; i < std::max(replicas, 1); ++i) rule.ranks.push_back(static_cast<int>(a + i % (b - a + 1)));
      rule.wheres.push_back(s.where);
      rule.range = text;
      return rule;
    }
    if (!parse_value(text, ArgType::Int)) return expected();
    auto r = bounded_int(s, what, 0, limits::kMaxRank);
    if (!r) return {};
    rule.ranks.push_back(static_cast<int>(*r));
    rule.wheres.push_back(s.where);
    return rule;
  }

  // A weight: a number in (0, kMaxWeight].
  std::optional<double> weight_value(const Scalar& s, const std::string& what) {
    auto v = value(s, ArgType::Float, what);
    if (!v) return std::nullopt;
    const double w = std::get<double>(*v);
    if (!(w > 0) || w > limits::kMaxWeight) {
      diags_.error(s.where, fmt::format("{}: {} is out of range: a weight is a relative CPU work above 0 and at most {:.0f}{}", what,
                                        value_to_string(*v), limits::kMaxWeight, origin_of(s)));
      return std::nullopt;
    }
    return w;
  }

  // `weight:` of declaration d with `replicas` replicas (0 if their count is in error): empty (none given),
  // one weight for every replica, or one per replica (a list).
  std::vector<double> weight_rule(const ProcessDecl& d, int replicas) {
    const std::string what = fmt::format("process '{}': weight", d.name);
    std::vector<double> weights;
    if (!d.weight_list.empty()) {
      for (std::size_t i = 0; i < d.weight_list.size(); ++i) {
        auto w = weight_value(d.weight_list[i], fmt::format("{} entry {}", what, i));
        if (!w) return {};
        weights.push_back(*w);
      }
      if (replicas > 0 && weights.size() != static_cast<std::size_t>(replicas)) {
        diags_.error(d.weight_list_where,
                     fmt::format("{}: a list of {} weight{} for {} replica{}; give one weight per replica, or one number for all",
                                 what, weights.size(), weights.size() == 1 ? "" : "s", replicas, replicas == 1 ? "" : "s"));
        return {};
      }
      return weights;
    }
    if (!d.weight) return weights;
    if (auto w = weight_value(*d.weight, what)) weights.push_back(*w);
    return weights;
  }

  // Checks a process declaration and records it; `total` counts the processes declared so far.
  void declare_process(const ProcessDecl& d, std::size_t& total) {
    const KindSpec* kind = find_kind(d.kind.text);
    if (kind == nullptr) {
      std::vector<std::string> names;
      for (const KindSpec* k : kind_list()) names.push_back(k->name);
      diags_.error(d.kind.where, fmt::format("process '{}': unknown kind '{}'{}; known kinds: {}", d.name, d.kind.text,
                                             did_you_mean(d.kind.text, names), fmt::join(names, ", ")));
      return;
    }
    Declared decl;
    decl.kind = kind;
    int replicas = 1;
    if (d.replicas) {
      auto r = bounded_int(*d.replicas, fmt::format("process '{}': replicas", d.name), 1, limits_.replicas);
      if (!r) return;
      replicas = static_cast<int>(*r);
      decl.replicated = true;
    }
    ProcessOptions options;
    if (d.stack_size) {
      auto s = bounded_int(*d.stack_size, fmt::format("process '{}': stack_size", d.name),
                           static_cast<std::int64_t>(config::kMinStackSize), static_cast<std::int64_t>(config::kMaxStackSize));
      if (s) options.stack_size = static_cast<std::size_t>(*s);
    }
    if (d.cpu) {
      auto c = bounded_int(*d.cpu, fmt::format("process '{}': cpu", d.name), 0, 4095);
      if (c) options.home_worker = static_cast<int>(*c);
    }
    if (d.priority) {
      auto r = bounded_int(*d.priority, fmt::format("process '{}': priority", d.name), config::kMinPriority, config::kMaxPriority);
      if (r) options.priority = static_cast<int>(*r);
    }
    // The rank count is known only at launch (distributed/placement.cpp checks the upper bound there).
    RankRule rank = rank_rule(d, replicas);
    std::vector<double> weights = weight_rule(d, replicas);
    std::map<std::string, Value> args;
    std::vector<std::string> arg_names;
    for (const auto& a : kind->args) arg_names.push_back(a.name);
    for (const auto& [name, scalar] : d.args) {
      const ArgSpec* spec = kind->arg(name);
      if (spec == nullptr) {
        diags_.error(d.arg_keys.count(name) != 0 ? d.arg_keys.at(name) : scalar.where,
                     fmt::format("process '{}': kind '{}' has no argument '{}'{}; its arguments: {}", d.name, kind->name,
                                 name, did_you_mean(name, arg_names),
                                 arg_names.empty() ? "(none)" : fmt::format("{}", fmt::join(arg_names, ", "))));
        continue;
      }
      if (auto v = value(scalar, spec->type, fmt::format("process '{}': argument '{}'", d.name, name))) args[name] = *v;
    }
    for (const auto& a : kind->args) {
      if (args.count(a.name) != 0 || d.args.count(a.name) != 0) continue;
      if (a.default_value) args[a.name] = *a.default_value;
      else diags_.error(d.where, fmt::format("process '{}': missing required argument '{}' ({}) of kind '{}'", d.name, a.name,
                                             to_string(a.type), kind->name));
    }
    decl.first = total;
    decl.count = replicas;
    decl.where = d.where;
    decl.args = std::make_shared<const std::map<std::string, Value>>(std::move(args));
    decl.options = options;
    decl.rank = std::move(rank);
    decl.weights = std::move(weights);
    total += static_cast<std::size_t>(replicas);
    declared_[d.name] = std::move(decl);
  }

  void expand_process(const ProcessDecl& d) {
    auto it = declared_.find(d.name);
    if (it == declared_.end()) return;
    const Declared& decl = it->second;
    for (int i = 0; i < decl.count; ++i) {
      ResolvedProcess p;
      p.name = decl.replicated ? fmt::format("{}[{}]", d.name, i) : d.name;
      p.declaration = d.name;
      p.where = d.where;
      p.kind = decl.kind;
      p.replica = i;
      p.replicas = decl.count;
      p.args = decl.args;  // shared (resolved.hpp)
      p.options = decl.options;
      const RankRule& r = decl.rank;
      if (r.ranks.size() == 1) p.rank = r.ranks[0];
      else if (!r.ranks.empty()) p.rank = r.ranks[static_cast<std::size_t>(i)];
      if (!r.wheres.empty()) p.rank_where = r.wheres.size() == 1 ? r.wheres[0] : r.wheres[static_cast<std::size_t>(i)];
      p.rank_round_robin = r.round_robin;
      p.rank_range = r.range;
      if (decl.weights.size() == 1) p.weight = decl.weights[0];
      else if (!decl.weights.empty()) p.weight = decl.weights[static_cast<std::size_t>(i)];
      out_.processes.push_back(std::move(p));
    }
  }

  struct Declared {
    const KindSpec* kind = nullptr;
    bool replicated = false;
    std::size_t first = 0;  // index of its first replica among the expanded processes
    int count = 0;
    Location where;
    std::shared_ptr<const std::map<std::string, Value>> args;  // its replicas share it
    ProcessOptions options;
    RankRule rank;
    std::vector<double> weights;  // weight_rule's
  };

  // Expands one side; nullopt (with a diagnostic) if it names something that does not exist.
  std::optional<Side> side(const PortRef& r, PortDir dir, const PortSpec*& port_out) {
    auto it = declared_.find(r.process);
    if (it == declared_.end()) {
      std::vector<std::string> names;
      for (const auto& p : t_.processes) names.push_back(p.name);
      // A process with an unknown kind was reported already; do not pile on.
      if (t_.unreadable_processes.count(r.process) == 0 &&
          std::none_of(t_.processes.begin(), t_.processes.end(), [&](const ProcessDecl& p) { return p.name == r.process; })) {
        diags_.error(r.where, fmt::format("unknown process '{}'{}", r.process, did_you_mean(r.process, names)));
      }
      return std::nullopt;
    }
    const Declared& d = it->second;
    const PortSpec* port = d.kind->port(r.port);
    if (port == nullptr) {
      std::vector<std::string> names;
      for (const auto& p : d.kind->ports) names.push_back(p.name);
      diags_.error(r.where, fmt::format("process '{}' (kind '{}') has no port '{}'{}; its ports: {}", r.process, d.kind->name,
                                        r.port, did_you_mean(r.port, names), fmt::join(names, ", ")));
      return std::nullopt;
    }
    if (port->dir != dir) {
      diags_.error(r.where, fmt::format("port '{}.{}' is an {} port; a channel goes from an output to an input", r.process,
                                        r.port, port->dir == PortDir::In ? "input" : "output"));
      return std::nullopt;
    }
    port_out = port;
    Side s;
    if (r.replica) {
      auto idx = bounded_int(*r.replica, fmt::format("'{}' replica index", r.process), -d.count, d.count - 1);
      if (!idx) return std::nullopt;
      const std::int64_t i = *idx < 0 ? *idx + d.count : *idx;
      s.first = d.first + static_cast<std::size_t>(i);
      s.count = 1;
      return s;
    }
    s.first = d.first;
    s.count = static_cast<std::size_t>(d.count);
    s.flexible = port->array && !d.replicated;
    return s;
  }

  std::optional<ChannelPlan> plan_channel(const ChannelDecl& c) {
    ChannelPlan plan;
    plan.decl = &c;
    auto from = side(c.from, PortDir::Out, plan.from_port);
    auto to = side(c.to, PortDir::In, plan.to_port);
    if (!from || !to) return std::nullopt;
    plan.from = *from;
    plan.to = *to;
    if (plan.from_port->type != plan.to_port->type) {
      diags_.error(c.where, fmt::format("type mismatch: '{}.{}' writes {} but '{}.{}' reads {}", c.from.process, c.from.port,
                                        plan.from_port->type, c.to.process, c.to.port, plan.to_port->type));
      return std::nullopt;
    }
    if (find_message_type(plan.from_port->type) == nullptr) {
      diags_.error(c.where, fmt::format("port type '{}' is not a registered message type", plan.from_port->type));
      return std::nullopt;
    }
    if (c.capacity) {
      auto v = bounded_int(*c.capacity, "channel capacity", 1, limits::kMaxCapacity);
      if (!v) return std::nullopt;
      plan.capacity = static_cast<std::size_t>(*v);
    }
    const std::string desc = fmt::format("channel {} -> {}", c.from.process + "." + c.from.port, c.to.process + "." + c.to.port);
    if (c.count && !(from->flexible && to->flexible)) {
      diags_.error(c.count->where, fmt::format("{}: 'count' applies only between two array ports of single processes", desc));
      return std::nullopt;
    }
    if ((c.shift || c.wrap) && (from->flexible || to->flexible)) {
      diags_.error(c.where, fmt::format("{}: 'shift' and 'wrap' apply only between replicated processes", desc));
      return std::nullopt;
    }
    if (from->flexible && to->flexible) {
      if (c.count) {
        auto v = bounded_int(*c.count, desc + ": count", 1, limits_.replicas);
        if (!v) return std::nullopt;
        plan.count = *v;
      }
      plan.channels = static_cast<std::size_t>(plan.count);
    } else if (from->flexible) {
      plan.channels = to->count;
    } else if (to->flexible) {
      plan.channels = from->count;
    } else {
      const std::size_t n = from->count;
      if (to->count != n) {
        diags_.error(c.where, fmt::format("{}: cannot connect {} '{}' to {} '{}' one to one{}", desc, n, c.from.process,
                                          to->count, c.to.process,
                                          n == 1 || to->count == 1
                                              ? " (to fan out or in, use an array port, like a split or merge)"
                                              : ""));
        return std::nullopt;
      }
      if (c.shift) {
        auto v = bounded_int(*c.shift, desc + ": shift", -limits_.replicas, limits_.replicas);
        if (!v) return std::nullopt;
        plan.shift = *v;
      }
      if (c.wrap) {
        auto v = value(*c.wrap, ArgType::Bool, desc + ": wrap");
        if (!v) return std::nullopt;
        plan.wrap = std::get<bool>(*v);
      }
      const auto sn = static_cast<std::int64_t>(n);
      const std::int64_t reach = plan.shift < 0 ? -plan.shift : plan.shift;
      plan.channels = plan.wrap ? n : static_cast<std::size_t>(std::max<std::int64_t>(0, sn - reach));
    }
    return plan;
  }

  void expand_channel(const ChannelPlan& plan) {
    const ChannelDecl& c = *plan.decl;
    // "writer.port[i] -> reader.port[j]", built in one string (a channel of a 100,000-process network is
    // named 100,000 times).
    const auto append_end = [](std::string& out, const std::string& process, const std::string& port, bool array,
                               std::size_t index) {
      out += process;
      out += '.';
      out += port;
      if (array) {
        out += '[';
        fmt::format_to(std::back_inserter(out), "{}", index);
        out += ']';
      }
    };
    auto add = [&](std::size_t f, std::size_t t) {
      ResolvedChannel& ch = out_.channels.emplace_back();
      ch.from = f;
      ch.from_port = c.from.port;
      ch.to = t;
      ch.to_port = c.to.port;
      ch.capacity = plan.capacity;
      ch.type = plan.from_port->type;
      auto& fp = out_.processes[f].ports[ch.from_port];
      auto& tp = out_.processes[t].ports[ch.to_port];
      const std::string& writer = out_.processes[f].name;
      const std::string& reader = out_.processes[t].name;
      ch.name.reserve(writer.size() + reader.size() + ch.from_port.size() + ch.to_port.size() + 32);
      append_end(ch.name, writer, ch.from_port, plan.from_port->array, fp.size());
      ch.name += " -> ";
      append_end(ch.name, reader, ch.to_port, plan.to_port->array, tp.size());
      const std::size_t index = out_.channels.size() - 1;
      fp.push_back(index);
      tp.push_back(index);
      declaration_of_.push_back(&c);
    };
    const Side& from = plan.from;
    const Side& to = plan.to;
    if (from.flexible && to.flexible) {
      for (std::int64_t i = 0; i < plan.count; ++i) add(from.first, to.first);
    } else if (from.flexible) {
      for (std::size_t k = 0; k < to.count; ++k) add(from.first, to.first + k);
    } else if (to.flexible) {
      for (std::size_t k = 0; k < from.count; ++k) add(from.first + k, to.first);
    } else {
      const auto sn = static_cast<std::int64_t>(from.count);
      for (std::int64_t i = 0; i < sn; ++i) {
        std::int64_t j = i + plan.shift;
        if (plan.wrap) j = ((j % sn) + sn) % sn;
        else if (j < 0 || j >= sn) continue;
        add(from.first + static_cast<std::size_t>(i), to.first + static_cast<std::size_t>(j));
      }
    }
  }

  void check_connections() {
    for (const auto& p : out_.processes) {
      const Location& where = declared_.at(p.declaration).where;
      for (const auto& port : p.kind->ports) {
        auto it = p.ports.find(port.name);
        const std::size_t n = it == p.ports.end() ? 0 : it->second.size();
        if (n == 0 && !t_.unreadable_channels && failed_ports_.count({p.declaration, port.name}) == 0) {
          diags_.error(where, fmt::format("port '{}.{}' ({} {}{}) is not connected", p.name, port.name,
                                          port.dir == PortDir::In ? "input" : "output", port.type, port.array ? " array" : ""));
        } else if (n > 1 && !port.array) {
          diags_.error(declaration_of_.at(it->second[1])->where,
                       fmt::format("port '{}.{}' is connected twice (first at {}); a single port takes one channel", p.name,
                                   port.name, declaration_of_.at(it->second[0])->where.str()));
        }
      }
    }
  }

  const Topology& t_;
  const std::vector<std::pair<std::string, std::string>>& overrides_;
  const ResolveLimits limits_;
  Diagnostics diags_;
  std::map<std::string, Param> params_;
  std::map<std::string, Declared> declared_;
  std::vector<const ChannelDecl*> declaration_of_;  // channel index -> its declaration
  std::set<std::pair<std::string, std::string>> failed_ports_;  // (declaration, port) of failed channels
  ResolvedNetwork out_;
};

}  // namespace

ResolvedNetwork resolve(const Topology& topology, const std::vector<std::pair<std::string, std::string>>& overrides,
                        const ResolveLimits& limits) {
  return Resolver(topology, overrides, limits).run();
}

}  // namespace kpn
