#!/usr/bin/env bash
# Sets up the machine (apt, idempotent), builds kpn in Release with warnings as errors, runs the test suite,
# and checks the installed package (scripts/check_package.sh). With --tsan, --asan or --ubsan it then builds the
# suite with that sanitizer (build-thread/, build-address/, build-undefined/) and runs it again. --asan and
# --ubsan together make one pass with both (build-address-undefined/): one build and one run of the suite
# fewer, and the same reports (CI's .ci/run does this).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache (scripts/setup.sh installs it) serves an unchanged file from a cache, also to another clone of
# the tree: paths inside the tree are made relative to it. Read by CMake when a build folder is configured.
if command -v ccache > /dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$PWD"
fi

sanitizers=()
for arg in "$@"; do
  case "$arg" in
    --tsan) sanitizers+=(thread) ;;
    --asan) sanitizers+=(address) ;;
    --ubsan) sanitizers+=(undefined) ;;
    *) echo "usage: $0 [--tsan] [--asan] [--ubsan]" >&2; exit 2 ;;
  esac
done

bash scripts/setup.sh
python3 scripts/check_layers.py
bash scripts/build.sh -DKPN_WERROR=ON
ctest --test-dir build --output-on-failure
# Install, find_package, pkg-config, FetchContent, the installed kpn-run and plugins (docs/packaging.md).
bash scripts/check_package.sh

# AddressSanitizer and UndefinedBehaviorSanitizer instrument independently: one build carries both.
if [[ " ${sanitizers[*]} " == *" address "* && " ${sanitizers[*]} " == *" undefined "* ]]; then
  combined=()
  for san in "${sanitizers[@]}"; do
    case "$san" in
      thread) combined+=(thread) ;;
      address) combined+=(address,undefined) ;;
    esac
  done
  sanitizers=("${combined[@]}")
fi

for san in "${sanitizers[@]}"; do
  dir="build-${san//,/-}"
  echo "== test suite under the $san sanitizer ($dir)"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPN_SANITIZE="$san" \
    -DKPN_BUILD_BENCH=OFF -DKPN_BUILD_EXAMPLES=OFF -DKPN_WERROR=ON > /dev/null
  cmake --build "$dir"
  # halt_on_error: a report fails the run instead of scrolling past.
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
  ASAN_OPTIONS="halt_on_error=1 detect_leaks=1 ${ASAN_OPTIONS:-}" \
  UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 ${UBSAN_OPTIONS:-}" \
    ctest --test-dir "$dir" --output-on-failure
done
