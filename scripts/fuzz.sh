#!/usr/bin/env bash
# Builds the libFuzzer target for the topology loader, resolver and --set overrides
# (tests/fuzz/fuzz_topology.cpp) with clang into build-fuzz/, and runs it for N seconds (default 600).
# CI runs `scripts/fuzz.sh --seconds 60`; long runs keep what they learn in build-fuzz/corpus-live/.
# A crash stops the run, exits 1, and leaves its input in build-fuzz/crashes/; docs/fuzzing.md says how
# to turn it into a regression file.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
    *) echo "usage: $0 [--seconds N]" >&2; exit 2 ;;
  esac
done

bash scripts/setup.sh
# The fuzzer's own packages: clang, and libclang-rt-14-dev for libFuzzer and the sanitizers' runtimes
# (clang only recommends it, and setup installs without recommends). Idempotent, as setup.sh is.
fuzz_packages=(clang libclang-rt-14-dev)
missing=()
for p in "${fuzz_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "fuzz: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Without MPI: the fuzzer drives the loader, resolver and builder, which do not depend on it.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPN_FUZZ=ON -DKPN_MPI=OFF \
  -DKPN_BUILD_TESTS=OFF -DKPN_BUILD_BENCH=OFF -DKPN_BUILD_EXAMPLES=OFF -DKPN_WERROR=ON > /dev/null
# The fuzz target and what it links, not the tools and the shared library (a few minutes less in CI).
cmake --build build-fuzz --target kpn-fuzz-topology

# Seeds: configs/, the YAML of README.md and docs/, tests/fuzz/seeds/; regenerated each time. What the
# fuzzer finds goes to corpus-live/ (its first folder) and stays for the next run.
rm -rf build-fuzz/corpus-seed
/usr/bin/python3 tests/fuzz/make_corpus.py . build-fuzz/corpus-seed
mkdir -p build-fuzz/corpus-live build-fuzz/crashes

# -max_len=4096: inputs stay small, so a run explores shapes rather than sizes (size limits are the
# loader tests' job). -timeout: one input that takes 10 s is a hang. -rss_limit_mb: a small file that
# needs 2 GiB is a bug. halt_on_error/abort_on_error: every report stops the run with its input saved.
# The fuzzer's chatter (one line per new input) goes to build-fuzz/fuzz.log; the end of it is shown.
status=0
ASAN_OPTIONS="halt_on_error=1 detect_leaks=1 ${ASAN_OPTIONS:-}" \
UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 ${UBSAN_OPTIONS:-}" \
  build-fuzz/bin/kpn-fuzz-topology build-fuzz/corpus-live build-fuzz/corpus-seed tests/fuzz/regressions \
  -dict=tests/fuzz/topology.dict -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix=build-fuzz/crashes/ \
  > build-fuzz/fuzz.log 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  tail -n 80 build-fuzz/fuzz.log >&2
  echo "fuzz: FAILED (exit $status); the input is in build-fuzz/crashes/, the log in build-fuzz/fuzz.log" \
    "(docs/fuzzing.md says what next)" >&2
  exit 1
fi
grep -E '^(stat::|Done|#[0-9]+\s+DONE)' build-fuzz/fuzz.log || true
echo "fuzz: ${seconds} s without a crash ($(ls build-fuzz/corpus-live | wc -l) inputs in build-fuzz/corpus-live)"
