#pragma once
// Errors in a topology (the file, the command line's --set, or the network it describes). Every problem
// found is collected, each with its location, and reported together before anything runs.

#include <stdexcept>
#include <string>
#include <vector>

#include "networks/location.hpp"
#include "runtime/export.hpp"

namespace kpn {

struct KPN_EXPORT Diagnostic {
  Location where;
  std::string message;
  std::string str() const { return where.file.empty() ? message : where.str() + ": " + message; }
};

class KPN_EXPORT TopologyError : public std::runtime_error {
 public:
  explicit TopologyError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const noexcept { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// Collects diagnostics; throw_if_any() throws them as one TopologyError.
class KPN_EXPORT Diagnostics {
 public:
  void error(const Location& where, std::string message) { list_.push_back({where, std::move(message)}); }
  bool empty() const noexcept { return list_.empty(); }
  const std::vector<Diagnostic>& list() const noexcept { return list_; }
  void throw_if_any() const {
    if (!list_.empty()) throw TopologyError(list_);
  }

 private:
  std::vector<Diagnostic> list_;
};

}  // namespace kpn
