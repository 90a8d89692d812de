#pragma once
// What kpn-run knows: the policies and process kinds it can run, for --help's footer and for --kinds.

#include <string>

namespace kpn_run {

// --help's footer: the schedulers, the kinds' names and the exit status.
std::string catalogue();
// --kinds: every kind with its ports and arguments, as text.
std::string describe_kinds();
// --kinds --json: the same catalogue as describe_kinds(), for tools.
std::string describe_kinds_json();

}  // namespace kpn_run
