#pragma once
// Where something was written in a topology file, for error messages ("file:line:column").

#include <string>

#include "runtime/export.hpp"

namespace kpn {

struct KPN_EXPORT Location {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown (for example a value given with --set)
  int column = 0;  // 1-based

  std::string str() const {
    if (line == 0) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
};

}  // namespace kpn
