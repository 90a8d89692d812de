#!/usr/bin/env bash
# Configures and builds kpn (Release) into build/. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache (scripts/setup.sh installs it) serves an unchanged file from a cache, also to another clone of
# the tree: paths inside the tree are made relative to it. Read by CMake when a build folder is configured.
if command -v ccache > /dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$PWD"
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > /dev/null
cmake --build build
