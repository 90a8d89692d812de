#pragma once
// Process kinds: the named building blocks a topology file instantiates ("scatter-gather.worker").
// A kind declares typed ports (single or array) and typed arguments with defaults, and a factory that,
// given a KindContext (its arguments and connected channel endpoints), returns the process body.
//
// Register a kind in any translation unit of the program or of a plugin library:
//
//   KPN_REGISTER_KIND(doubler, {
//       .name = "my.doubler",
//       .description = "writes every input value twice as large",
//       .ports = {kpn::in_port("in", "i64"), kpn::out_port("out", "i64")},
//       .args = {},
//       .factory = [](kpn::KindContext& ctx) -> kpn::UniqueFunction<void()> {
//         return [in = ctx.input<std::int64_t>("in"), out = ctx.output<std::int64_t>("out")]() mutable {
//           while (auto v = in.read()) out.write(*v * 2);
//         };
//       }});

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

#include "channels/channel.hpp"
#include "networks/value.hpp"
#include "runtime/export.hpp"
#include "runtime/unique_function.hpp"

namespace kpn {

enum class PortDir { In, Out };

struct KPN_EXPORT PortSpec {
  std::string name;
  PortDir dir = PortDir::In;
  std::string type = "i64";  // a registered message type (message_types.hpp)
  bool array = false;        // an array port takes any number (>= 1) of channels, in declaration order
  std::string description;
};

struct KPN_EXPORT ArgSpec {
  std::string name;
  ArgType type = ArgType::Int;
  std::optional<Value> default_value;  // nullopt: the argument is required
  std::string description;
};

// Shorthands for declaring ports and arguments (designated initializers that omit a field draw a
// -Wmissing-field-initializers warning from GCC 12).
inline PortSpec in_port(std::string name, std::string type = "i64", std::string description = {}) {
  return PortSpec{std::move(name), PortDir::In, std::move(type), false, std::move(description)};
}
inline PortSpec out_port(std::string name, std::string type = "i64", std::string description = {}) {
  return PortSpec{std::move(name), PortDir::Out, std::move(type), false, std::move(description)};
}
inline PortSpec in_array(std::string name, std::string type = "i64", std::string description = {}) {
  return PortSpec{std::move(name), PortDir::In, std::move(type), true, std::move(description)};
}
inline PortSpec out_array(std::string name, std::string type = "i64", std::string description = {}) {
  return PortSpec{std::move(name), PortDir::Out, std::move(type), true, std::move(description)};
}
inline ArgSpec arg_int(std::string name, std::int64_t def, std::string description = {}) {
  return ArgSpec{std::move(name), ArgType::Int, Value{def}, std::move(description)};
}
inline ArgSpec arg_float(std::string name, double def, std::string description = {}) {
  return ArgSpec{std::move(name), ArgType::Float, Value{def}, std::move(description)};
}
inline ArgSpec arg_bool(std::string name, bool def, std::string description = {}) {
  return ArgSpec{std::move(name), ArgType::Bool, Value{def}, std::move(description)};
}
inline ArgSpec arg_string(std::string name, std::string def, std::string description = {}) {
  return ArgSpec{std::move(name), ArgType::String, Value{std::move(def)}, std::move(description)};
}
inline ArgSpec arg_required(std::string name, ArgType type, std::string description = {}) {
  return ArgSpec{std::move(name), type, std::nullopt, std::move(description)};
}

class KindContext;
using KindFactory = std::function<UniqueFunction<void()>(KindContext&)>;

struct KPN_EXPORT KindSpec {
  std::string name;
  std::string description;
  std::vector<PortSpec> ports;
  std::vector<ArgSpec> args;
  KindFactory factory;

  const PortSpec* port(std::string_view n) const noexcept;
  const ArgSpec* arg(std::string_view n) const noexcept;
};

// Where kinds print their results (a sink's checksum): whole lines, safe from any process.
class ResultSink {
 public:
  explicit ResultSink(std::function<void(std::string_view)> write_line) : write_line_(std::move(write_line)) {}
  void line(std::string_view text) {
    std::lock_guard g(mutex_);
    write_line_(text);
  }

 private:
  std::mutex mutex_;
  std::function<void(std::string_view)> write_line_;
};

// What a kind's factory sees of the process it makes.
class KPN_EXPORT KindContext {
 public:
  // `args` is read in place, not copied: it must outlive the context (the builder's resolved network does).
  KindContext(const KindSpec& kind, std::string name, int replica, int replicas, const std::map<std::string, Value>& args,
              std::map<std::string, std::vector<std::shared_ptr<ChannelBase>>> ports, ResultSink& results);

  const std::string& name() const noexcept { return name_; }  // "worker[3]", or "master"
  int replica() const noexcept { return replica_; }           // 0-based
  int replicas() const noexcept { return replicas_; }
  const KindSpec& kind() const noexcept { return kind_; }
  ResultSink& results() noexcept { return results_; }

  // For the rule on broken channels (networks/feedback.hpp): per channel of output port `port`, in order,
  // whether it feeds back into a cycle through this process (empty when none of them does); and whether
  // another member of that cycle writes out of it. Set by the builder; without it, no output is feedback.
  std::vector<bool> feedback(std::string_view port) const;
  bool cycle_has_other_exits() const noexcept { return cycle_has_other_exits_; }
  void set_output_roles(std::map<std::string, std::vector<bool>> feedback, bool cycle_has_other_exits) {
    feedback_ = std::move(feedback);
    cycle_has_other_exits_ = cycle_has_other_exits;
  }

  std::int64_t int_arg(std::string_view n) const { return std::get<std::int64_t>(arg(n, ArgType::Int)); }
  double float_arg(std::string_view n) const { return std::get<double>(arg(n, ArgType::Float)); }
  bool bool_arg(std::string_view n) const { return std::get<bool>(arg(n, ArgType::Bool)); }
  const std::string& string_arg(std::string_view n) const { return std::get<std::string>(arg(n, ArgType::String)); }

  // The endpoint(s) of a port; T must be the port's declared message type. Each endpoint can be taken once.
  template <class T>
  Reader<T> input(std::string_view port) {
    return Reader<T>(typed<T>(single(port, PortDir::In)));
  }
  template <class T>
  std::vector<Reader<T>> inputs(std::string_view port) {
    std::vector<Reader<T>> out;
    for (auto& c : take(port, PortDir::In, true)) out.emplace_back(typed<T>(std::move(c)));
    return out;
  }
  template <class T>
  Writer<T> output(std::string_view port) {
    return Writer<T>(typed<T>(single(port, PortDir::Out)));
  }
  template <class T>
  std::vector<Writer<T>> outputs(std::string_view port) {
    std::vector<Writer<T>> out;
    for (auto& c : take(port, PortDir::Out, true)) out.emplace_back(typed<T>(std::move(c)));
    return out;
  }

 private:
  const Value& arg(std::string_view n, ArgType expected) const;
  std::vector<std::shared_ptr<ChannelBase>> take(std::string_view port, PortDir dir, bool array);
  std::shared_ptr<ChannelBase> single(std::string_view port, PortDir dir) {
    return std::move(take(port, dir, false).front());
  }
  template <class T>
  std::shared_ptr<TypedChannel<T>> typed(std::shared_ptr<ChannelBase> c) {
    // Any channel kind carrying T (the bounded FIFO, or a cross-rank end of distributed/).
    auto t = std::dynamic_pointer_cast<TypedChannel<T>>(c);
    if (!t) throw_type_mismatch(*c, typeid(T));
    return t;
  }
  [[noreturn]] void throw_type_mismatch(const ChannelBase& c, const std::type_info& requested) const;

  const KindSpec& kind_;
  std::string name_;
  int replica_;
  int replicas_;
  const std::map<std::string, Value>& args_;
  std::map<std::string, std::vector<std::shared_ptr<ChannelBase>>> ports_;
  ResultSink& results_;
  std::map<std::string, std::vector<bool>> feedback_;
  bool cycle_has_other_exits_ = true;
};

// The registry of kinds, filled by static KindRegistration objects.
KPN_EXPORT const KindSpec* find_kind(std::string_view name);
KPN_EXPORT std::vector<const KindSpec*> kind_list();  // sorted by name

struct KPN_EXPORT KindRegistration {
  explicit KindRegistration(KindSpec spec);
};

#define KPN_REGISTER_KIND(ident, ...) \
  static const ::kpn::KindRegistration kpn_kind_registration_##ident{::kpn::KindSpec __VA_ARGS__}

}  // namespace kpn
