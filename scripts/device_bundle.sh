#!/usr/bin/env bash
# Packs kpn-run for the lent device machine (.library/device): that machine has none of kpn's Debian packages,
# so the Release build travels with the shared libraries it loads, and a wrapper per build points the loader
# at them. Everything goes under .dev/ (ignored by git; name it in the run tool's `carry`):
#
#   .dev/lib/             the libraries kpn-run loads from the system (yaml-cpp, hwloc, spdlog, fmt, Boost.Context,
#                         METIS, Open MPI, libstdc++...), one copy for every build; not glibc itself (libc, libm,
#                         the loader), which must match the machine's own and is present everywhere
#   .dev/now/bin/kpn-run  this tree's build/ (build it first: scripts/build.sh)
#   .dev/NAME/bin/kpn-run for each NAME=REV[+PATCH] argument: revision REV (with PATCH applied, a file of
#                         docs/patches/ say) built in Release in a worktree beside this one, ../kpn-NAME, for an
#                         A/B in one device call (scripts/sg_variants.py --variant NAME=handoff@.dev/NAME/bin/kpn-run)
#
#   bash scripts/device_bundle.sh [NAME=REV[+PATCH] ...]
#   bash scripts/device_bundle.sh before=0bf0508 lazy=HEAD+docs/patches/lazy-queue-summary.diff
#
# Each wrapper runs its build's own libkpn first, then .dev/lib. The bundle is about 15 MB, well under the
# carry's 64 MiB; scripts/device_scaling.sh is the measurement that uses it.
set -euo pipefail
cd "$(dirname "$0")/.."
for spec in "$@"; do
  [[ "$spec" =~ ^[a-z][a-z0-9-]*=[^+]+(\+.+)?$ && "${spec%%=*}" != now ]] || {
    echo "usage: $0 [NAME=REV[+PATCH] ...] (NAME in lower case, not 'now')" >&2; exit 2; }
done
[[ -x build/bin/kpn-run ]] || { echo "$0: no build/bin/kpn-run: run scripts/build.sh first" >&2; exit 1; }

rm -rf .dev
mkdir -p .dev/lib

# A build's kpn-run and libkpn under .dev/NAME, behind a wrapper; the system libraries both need into .dev/lib.
pack() {
  local name=$1 build=$2
  mkdir -p ".dev/$name/bin" ".dev/$name/libexec" ".dev/$name/lib"
  cp "$build/bin/kpn-run" ".dev/$name/libexec/kpn-run"
  cp -P "$build"/lib/libkpn.so* ".dev/$name/lib/"
  # ldd's "name => path" lines; glibc's own libraries and the vDSO stay behind.
  ldd "$build/bin/kpn-run" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r soname path; do
    case "$soname" in
      libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libkpn.so*) ;;
      *) [[ -e ".dev/lib/$soname" ]] || cp -L "$path" ".dev/lib/$soname" ;;
    esac
  done
  cat > ".dev/$name/bin/kpn-run" <<'EOF'
#!/bin/sh
# kpn-run with the libraries carried beside it (scripts/device_bundle.sh).
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/../lib:$here/../../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/../libexec/kpn-run" "$@"
EOF
  chmod +x ".dev/$name/bin/kpn-run"
}

pack now build
for spec in "$@"; do
  name=${spec%%=*} what=${spec#*=}
  rev=$(git rev-parse --short "${what%%+*}")
  patch=""
  [[ "$what" == *+* ]] && patch=$(readlink -f "${what#*+}")
  tree="$PWD/../kpn-$name"
  [[ -d "$tree" ]] || git worktree add --detach "$tree" "$rev"
  git -C "$tree" reset -q --hard   # a patch applied there last time
  git -C "$tree" checkout -q --detach "$rev"
  [[ -z "$patch" ]] || git -C "$tree" apply "$patch"
  if command -v ccache > /dev/null; then
    export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$tree"
  fi
  cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKPN_BUILD_BENCH=OFF \
    -DKPN_BUILD_EXAMPLES=OFF > /dev/null
  cmake --build "$tree/build" --target kpn-run
  pack "$name" "$tree/build"
  echo "$rev${patch:+ + ${what#*+}}" > ".dev/$name/REVISION"
done
{ git rev-parse --short HEAD; git diff --quiet HEAD || echo "with uncommitted changes"; } > .dev/now/REVISION
# A last look that the wrappers start with nothing but the carried libraries and glibc.
for w in .dev/*/bin/kpn-run; do
  env -u LD_LIBRARY_PATH "$w" --version > /dev/null || { echo "$0: $w does not start" >&2; exit 1; }
done
du -sh .dev
