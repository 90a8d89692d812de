#pragma once
// Where something was written in a topology file, for error messages ("file:line:column", or "file:line").

#include <string>

#include "runtime/export.hpp"

namespace kpn {

struct KPN_EXPORT Location {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown (for example a value given with --set)
  int column = 0;  // 1-based; 0 when unknown (a declaration made in C++: its line only)

  std::string str() const {
    if (line == 0) return file;
    if (column == 0) return file + ":" + std::to_string(line);
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
};

}  // namespace kpn
