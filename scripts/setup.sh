#!/usr/bin/env bash
# Installs the Debian 12 packages kpn needs to build, test and run. Idempotent: when every package is
# already installed it changes nothing and makes no network access. Needs root (or sudo) only when
# something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  ccache                 # rebuilds of an unchanged file, in this clone or another (scripts/build.sh)
  libboost-context-dev   # stackful fibers
  libhwloc-dev           # CPU topology and pinning
  libyaml-cpp-dev        # topology files
  libspdlog-dev libfmt-dev
  catch2                 # tests (Debian ships v2.13)
  libmetis-dev           # graph-partitioning scheduler
  libcli11-dev           # command lines of the tools
  libopenmpi-dev openmpi-bin   # optional: one network across machines (kpn-run --distributed, docs/distributed.md)
  python3 python3-matplotlib python3-yaml   # tools/experiment.py (sweeps and their figures)
  python3-jsonschema     # scripts/check_schema.py (docs/topology.schema.json against configs/)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
