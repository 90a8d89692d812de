#pragma once
// Turns a resolved network into a kpn::Network of live channels and process bodies, ready to run.

#include <cstddef>
#include <functional>
#include <memory>

#include "channels/network.hpp"
#include "networks/kinds.hpp"
#include "networks/resolved.hpp"
#include "runtime/export.hpp"

namespace kpn {

// Kinds print their results to `results`, which must outlive the run. A kind's factory that rejects its
// arguments makes this throw a TopologyError at the process's declaration, naming the process.
KPN_EXPORT Network build_network(const ResolvedNetwork& resolved, ResultSink& results);

// A part of the network, for a run that holds only some of its processes (a rank of a distributed run):
// `include(i)` says whether process i is built here, and `make_channel(i)` gives the channel object of
// channel i whose writer or reader is built here (a channel with neither end here is not made). A
// channel with both ends here comes from the message type's factory unless make_channel returns one.
struct KPN_EXPORT PartialBuild {
  std::function<bool(std::size_t process)> include;
  std::function<std::shared_ptr<ChannelBase>(std::size_t channel)> make_channel;  // nullptr: the default
};
KPN_EXPORT Network build_network(const ResolvedNetwork& resolved, ResultSink& results, const PartialBuild& part);

}  // namespace kpn
