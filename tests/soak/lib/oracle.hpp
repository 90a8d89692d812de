#pragma once
// The sequential oracle: what every sink of a soak network must receive, computed with plain loops over
// vectors (no runtime, no channels, no threads). Each stream's full contents follow from its writer's
// function; a sink that stops early receives the first `limit` values of its stream. That is exact
// because a node keeps reading its inputs to the end while any of its outputs has a reader, so every
// stream that someone still reads carries its full contents.

#include <vector>

#include "soak_net.hpp"

namespace kpn::soak {

// Per sink (in node order), the values it must receive, in order.
std::vector<std::vector<u64>> expected_outputs(const NetSpec& net);

}  // namespace kpn::soak
