#!/usr/bin/env bash
# Checks that kpn can be installed and used by another project (docs/packaging.md). Installs the Release
# build in build/ into a temporary prefix, moves the prefix (the package must be relocatable), then:
#   1. builds and runs tests/consumer with find_package(kpn)   (CMAKE_PREFIX_PATH=<prefix>)
#   2. builds and runs tests/consumer/main.cpp with pkg-config (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig, plain g++)
#   3. builds the plugin example against the installed package, and runs the installed kpn-run with it, with
#      the installed copy of the plugin (found by file name) and on configs/scatter-gather.yaml
#   4. builds and runs tests/consumer with FetchContent of this checkout (kpn's tests, benchmarks and examples
#      off in the subproject, as they are by default there); --no-fetchcontent skips it (it compiles the
#      library once more).
# Run after scripts/build.sh (scripts/test.sh does, after the test suite). Exit 0 when every check passes.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"

fetchcontent=1
for arg in "$@"; do
  case "$arg" in
    --no-fetchcontent) fetchcontent=0 ;;
    *) echo "usage: $0 [--no-fetchcontent]" >&2; exit 2 ;;
  esac
done

[ -f build/CMakeCache.txt ] || { echo "check_package: no build/ (run scripts/build.sh first)" >&2; exit 2; }
version=$(sed -n 's/^project(kpn VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
IFS=. read -r major minor _ <<< "$version"
soversion="$major.$minor"
[ "$major" = 0 ] || soversion="$major"

work=$(mktemp -d "${TMPDIR:-/tmp}/kpn-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "check_package: FAIL: $*" >&2; exit 1; }
step() { echo "== check_package: $*"; }
jobs=2

step "install into a prefix, then move it"
cmake --install build --prefix "$work/staging" > /dev/null
mv "$work/staging" "$work/prefix"
prefix="$work/prefix"
for f in include/kpn/kpn.hpp include/kpn/runtime/runtime.hpp include/kpn/networks/kinds.hpp \
         lib/libkpn.so "lib/libkpn.so.$soversion" "lib/libkpn.so.$version" \
         lib/cmake/kpn/kpnConfig.cmake lib/cmake/kpn/kpnConfigVersion.cmake lib/cmake/kpn/kpnTargets.cmake \
         lib/pkgconfig/kpn.pc bin/kpn-run lib/kpn/plugins share/doc/kpn/LICENSE share/doc/kpn/CHANGELOG.md; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
readelf -d "$prefix/lib/libkpn.so" | grep -q "SONAME.*\[libkpn\.so\.$soversion\]" || fail "libkpn's soname is not libkpn.so.$soversion"
if grep -rq "$work/staging\|$src" "$prefix/lib/cmake/kpn" "$prefix/lib/pkgconfig/kpn.pc"; then
  fail "the CMake package or kpn.pc names the build or install folder (not relocatable)"
fi

# A consumer's binary depends on libkpn, not on libkpn's private dependencies.
check_needed() {
  local needed
  needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  grep -q "^libkpn\.so\.$soversion$" <<< "$needed" || fail "$1 does not need libkpn.so.$soversion"
  if grep -Eq "hwloc|yaml-cpp|metis" <<< "$needed"; then fail "$1 links libkpn's private dependencies"; fi
}
expect_consumer_output() {
  local out
  out=$("$1") || fail "$1 failed"
  grep -q "^kpn-consumer: sum=500500 processes=2 messages=1000$" <<< "$out" || fail "$1 printed: $out"
}

step "find_package(kpn)"
# A Debug program against the Release library: it must not see the library's Debug-only KPN_DEBUG_CHECKS.
cmake -S tests/consumer -B "$work/find-package" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > /dev/null
if grep -q KPN_DEBUG_CHECKS "$work/find-package/compile_commands.json"; then
  fail "a Debug consumer of a Release kpn gets KPN_DEBUG_CHECKS"
fi
cmake --build "$work/find-package" -j"$jobs" > /dev/null
check_needed "$work/find-package/kpn-consumer"
expect_consumer_output "$work/find-package/kpn-consumer"

step "pkg-config kpn"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[ "$(pkg-config --modversion kpn)" = "$version" ] || fail "pkg-config --modversion kpn is not $version"
# shellcheck disable=SC2046  # pkg-config's flags are words
g++ -std=c++20 -O2 -Wall -Wextra -Werror tests/consumer/main.cpp -o "$work/pkg-config-consumer" \
  $(pkg-config --cflags --libs kpn) -Wl,-rpath,"$(pkg-config --variable=libdir kpn)"
check_needed "$work/pkg-config-consumer"
expect_consumer_output "$work/pkg-config-consumer"
unset PKG_CONFIG_PATH

step "the installed kpn-run, with plugins"
kpn_run="$prefix/bin/kpn-run"
loaded=$(ldd "$kpn_run" | sed -n "s/.*libkpn\.so\.$soversion => \([^ ]*\) .*/\1/p")
[ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$prefix/lib/libkpn.so.$soversion")" ] ||
  fail "the installed kpn-run loads '$loaded', not the installed libkpn"
[ "$("$kpn_run" --version)" = "kpn-run $version" ] || fail "kpn-run --version is not 'kpn-run $version'"
out=$("$kpn_run" configs/scatter-gather.yaml --cpus 2 --set workers=8 --set rounds=50 --quiet) || fail "kpn-run failed"
[ "$out" = "master: rounds=50 workers=8 replies=400" ] || fail "kpn-run configs/scatter-gather.yaml printed: $out"
# The plugin example built against the installed package...
cmake -S examples/plugin -B "$work/plugin" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$work/plugin" -j"$jobs" > /dev/null
expected="collatz: count=10000 sum=849666 hash=361cf6973b68889c"
out=$("$kpn_run" examples/plugin/collatz.yaml --quiet --plugin "$work/plugin/libkpn-example-plugin.so") ||
  fail "kpn-run with the plugin built against the package failed"
[ "$out" = "$expected" ] || fail "kpn-run with the plugin built against the package printed: $out"
# ... and the installed one (when build/ has the examples), by file name (lib/kpn/plugins) and by its short name.
installed_plugins=()
if grep -q "^KPN_BUILD_EXAMPLES:BOOL=ON$" build/CMakeCache.txt; then
  [ -e "$prefix/lib/kpn/plugins/libkpn-example-plugin.so" ] || fail "not installed: lib/kpn/plugins/libkpn-example-plugin.so"
  installed_plugins=(libkpn-example-plugin.so kpn-example-plugin)
fi
for name in "${installed_plugins[@]}"; do
  out=$(cd "$work" && "$kpn_run" "$src/examples/plugin/collatz.yaml" --quiet --plugin "$name") ||
    fail "kpn-run --plugin $name failed"
  [ "$out" = "$expected" ] || fail "kpn-run --plugin $name printed: $out"
done

if [ "$fetchcontent" = 1 ]; then
  step "FetchContent of this checkout (compiles the library, about a few minutes on 2 cores)"
  # No build type: the fastest compile, and kpn as a subproject must not choose one for its parent.
  cmake -S tests/consumer -B "$work/fetchcontent" -G Ninja -DKPN_CONSUMER_VIA=fetchcontent \
    -DKPN_SOURCE_DIR="$src" > /dev/null
  for option in KPN_BUILD_TESTS KPN_BUILD_BENCH KPN_BUILD_EXAMPLES KPN_INSTALL; do
    grep -q "^$option:BOOL=OFF$" "$work/fetchcontent/CMakeCache.txt" || fail "$option is not OFF in a subproject"
  done
  cmake --build "$work/fetchcontent" --target kpn-consumer -j"$jobs" > /dev/null
  expect_consumer_output "$work/fetchcontent/kpn-consumer"
fi

step "all checks passed"
