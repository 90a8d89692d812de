#pragma once
// The processes and channels a run starts with. User code builds it through kpn::Network (channels/),
// which adds typed channels; the runtime consumes it.

#include <memory>
#include <string>
#include <vector>

#include "runtime/channel_view.hpp"
#include "runtime/export.hpp"
#include "runtime/process_options.hpp"
#include "runtime/unique_function.hpp"

namespace kpn {

// Throws std::invalid_argument if `options` are not valid for a process called `name`.
KPN_EXPORT void validate(const std::string& name, const ProcessOptions& options);

struct ProcessSpec {
  std::string name;
  UniqueFunction<void()> body;
  ProcessOptions options;
};

class KPN_EXPORT NetworkSpec {
 public:
  NetworkSpec() = default;
  NetworkSpec(NetworkSpec&&) = default;
  NetworkSpec& operator=(NetworkSpec&&) = default;
  virtual ~NetworkSpec() = default;

  // Adds a process to start with the network. Names must be unique within a network: take_processes, so the
  // run, refuses a network with two processes of one name (std::invalid_argument naming it). Checked there,
  // once, by sorting, rather than here by hashing every name into a set: building a network of 100,000
  // processes stays a push per process.
  void add_process(std::string name, UniqueFunction<void()> body, ProcessOptions options = {});
  // Makes a channel visible to the run's report.
  void add_channel(std::shared_ptr<ChannelView> channel);

  std::size_t process_count() const noexcept { return processes_.size(); }
  const std::vector<std::shared_ptr<ChannelView>>& channels() const noexcept { return channels_; }
  // Hands the processes to a run; a network runs once (std::logic_error on the second time). Throws
  // std::invalid_argument, and hands nothing over, when two processes have the same name.
  std::vector<ProcessSpec> take_processes();

 private:
  std::vector<ProcessSpec> processes_;
  std::vector<std::shared_ptr<ChannelView>> channels_;
  bool taken_ = false;
};

}  // namespace kpn
