#pragma once
// Where kpn-run writes: the network's results on stdout, and --stats-json and --trace files, every write
// checked (a full disk or a closed pipe is an error of its own, exit status 1).

#include <atomic>
#include <stdexcept>
#include <string>

#include "networks/kinds.hpp"

namespace kpn_run {

// Writing a result failed (a full disk, a closed pipe): not the network's fault, but not success either.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to `path` ("-": stdout), checking every write, the flush and the close. Throws WriteError.
void write_text(const std::string& path, const std::string& text);

// Finds before the run what would make writing `path` fail for certain: a missing directory, a
// directory in its place, no permission. Throws CLI::ValidationError naming `option`. (A full disk shows
// only when writing: write_text reports it.)
void check_writable(const std::string& option, const std::string& path);

// The network's results, a line each on stdout; the first write error (errno, 0: none) goes to `error`,
// reported after the run.
kpn::ResultSink stdout_results(std::atomic<int>& error);

}  // namespace kpn_run
