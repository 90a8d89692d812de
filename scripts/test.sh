#!/usr/bin/env bash
# Sets up the machine (apt, idempotent), builds kpn in Release with warnings as errors, and runs the test
# suite. With --tsan it then builds the suite with ThreadSanitizer (build-tsan/) and runs it again.
set -euo pipefail
cd "$(dirname "$0")/.."

tsan=0
for arg in "$@"; do
  case "$arg" in
    --tsan) tsan=1 ;;
    *) echo "usage: $0 [--tsan]" >&2; exit 2 ;;
  esac
done

bash scripts/setup.sh
bash scripts/build.sh -DKPN_WERROR=ON
ctest --test-dir build --output-on-failure

if [ "$tsan" = 1 ]; then
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPN_SANITIZE=thread \
    -DKPN_BUILD_BENCH=OFF -DKPN_WERROR=ON > /dev/null
  cmake --build build-tsan --target kpn-tests
  # halt_on_error: a report fails the run instead of scrolling past.
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" ctest --test-dir build-tsan --output-on-failure
fi
