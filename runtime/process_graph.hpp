#pragma once
// The process network as a weighted graph, for policies that place processes by the graph (gp): processes
// are vertices, channels between two known processes are edges. Built by the runtime (run.cpp) from what
// it knows: the initial network before it starts, or the live processes and their channels while it runs.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/export.hpp"

namespace kpn {

struct KPN_EXPORT ProcessGraph {
  struct Vertex {
    std::string name;
    std::uint64_t id = 0;         // the process id; 0 for the initial network (ids are given at spawn)
    std::uint64_t cpu_ticks = 0;  // CPU time so far (cycle_clock ticks); 0 before the run
    int home = -1;                // the current home worker, -1 for none
    bool pinned = false;          // the user fixed its worker (ProcessOptions::home_worker)
  };
  struct Edge {
    std::size_t from = 0;         // indexes into `vertices`: the writer and the reader
    std::size_t to = 0;
    std::uint64_t messages = 0;   // written so far; 0 before the run
  };
  std::vector<Vertex> vertices;
  std::vector<Edge> edges;
};

}  // namespace kpn
