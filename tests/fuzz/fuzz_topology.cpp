// kpn-fuzz-topology: libFuzzer target for the topology loader, the resolver, --set overrides and the
// builder (what `kpn-run --validate` does; the input format is in fuzz_input.hpp). Build and run with scripts/fuzz.sh; docs/fuzzing.md says more.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // An exception other than the clean ones escapes on purpose: libFuzzer reports it as a crash.
  kpn::fuzz::load_and_resolve(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
