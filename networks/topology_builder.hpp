#pragma once
// A topology described in C++ instead of YAML. It fills the same model the YAML loader fills
// (topology.hpp), so resolve() checks and expands it exactly as it does a file: the same kinds (built in,
// or registered by the program with KPN_REGISTER_KIND), replicas, array ports, `shift`, parameters and
// `rank:` / `weight:` for a distributed run. Each declaration remembers the C++ line that made it, and
// resolve()'s errors point there ("main.cpp:42: process 'sink': unknown kind ...").
//
//   kpn::TopologyBuilder b("squares");
//   b.param("count", 1000);
//   b.process("source", "source").arg("count", "$count");
//   b.process("square", "my.square").replicas(4).weight(3);
//   b.process("sink", "sink");
//   b.channel("source.out", "square[0].in").capacity(8);
//   ...
//   kpn::ResolvedNetwork net = kpn::resolve(b.topology(), {{"count", "500"}});

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "networks/source_line.hpp"
#include "networks/topology.hpp"
#include "runtime/export.hpp"

namespace kpn {

// A value as the YAML would write it: numbers and booleans become their text; a string is taken as it
// is, so "$name" refers to a parameter, as in a file.
class KPN_EXPORT TopologyValue {
 public:
  TopologyValue(std::int64_t v);           // NOLINT: implicit, so that .arg("count", 10) reads naturally
  TopologyValue(int v) : TopologyValue(static_cast<std::int64_t>(v)) {}  // NOLINT
  TopologyValue(double v);                 // NOLINT
  TopologyValue(bool v);                   // NOLINT
  TopologyValue(std::string v) : text_(std::move(v)) {}  // NOLINT
  TopologyValue(const char* v) : text_(v) {}             // NOLINT
  const std::string& text() const noexcept { return text_; }

 private:
  std::string text_;
};

class KPN_EXPORT TopologyBuilder {
 public:
  // The settings of one process declaration (the keys of a file's `processes:` entry).
  class KPN_EXPORT ProcessSettings {
   public:
    ProcessSettings& arg(const std::string& name, const TopologyValue& value);
    ProcessSettings& replicas(const TopologyValue& n);
    ProcessSettings& stack_size(const TopologyValue& bytes);
    ProcessSettings& cpu(const TopologyValue& worker);
    ProcessSettings& priority(const TopologyValue& p);
    ProcessSettings& rank(const TopologyValue& r);               // N, "A..B", "round-robin" or "$param"
    ProcessSettings& ranks(const std::vector<int>& per_replica);
    ProcessSettings& weight(const TopologyValue& w);             // relative CPU work of each replica
    ProcessSettings& weights(const std::vector<double>& per_replica);

    explicit ProcessSettings(ProcessDecl& decl) : decl_(decl) {}  // made by TopologyBuilder::process

   private:
    Scalar at(const TopologyValue& v) const { return Scalar{v.text(), decl_.where}; }
    ProcessDecl& decl_;
  };

  // The settings of one channel declaration (the keys of a file's `channels:` entry).
  class KPN_EXPORT ChannelSettings {
   public:
    ChannelSettings& capacity(const TopologyValue& n);
    ChannelSettings& shift(const TopologyValue& n);
    ChannelSettings& wrap(const TopologyValue& w);
    ChannelSettings& count(const TopologyValue& n);

    explicit ChannelSettings(ChannelDecl& decl) : decl_(decl) {}  // made by TopologyBuilder::channel

   private:
    Scalar at(const TopologyValue& v) const { return Scalar{v.text(), decl_.where}; }
    ChannelDecl& decl_;
  };

  explicit TopologyBuilder(std::string name, SourceLine where = SourceLine::current());

  // A parameter and its default; a --set style override is resolve()'s second argument.
  TopologyBuilder& param(const std::string& name, const TopologyValue& value,
                         SourceLine where = SourceLine::current());
  // A process declaration of a registered kind; the reference stays valid while the builder lives.
  ProcessSettings& process(const std::string& name, const std::string& kind, SourceLine where = SourceLine::current());
  // A channel from an output port to an input port: "process.port" or "process[index].port".
  ChannelSettings& channel(const std::string& from, const std::string& to, SourceLine where = SourceLine::current());

  // The topology so far, with what the builder found wrong (a malformed name or port reference, a name
  // given twice) in its load_errors, which resolve() reports with its own findings.
  Topology topology() const;

 private:
  Topology head_;  // name, parameters and load_errors; the declarations are below
  // Deques: the settings handed out refer into them, and stay valid as more are declared.
  std::deque<ProcessDecl> process_decls_;
  std::deque<ChannelDecl> channel_decls_;
  std::deque<ProcessSettings> processes_;
  std::deque<ChannelSettings> channels_;
};

}  // namespace kpn
