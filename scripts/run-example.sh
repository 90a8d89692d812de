#!/usr/bin/env bash
# Sets up the machine (apt, idempotent), builds kpn in Release, and runs the main job: the scatter-gather
# network of seed 000 (50 workers, 200 rounds, 100 us of work per message) on every CPU under ws-last.
# Extra arguments go to the example (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/bin/scatter-gather-example "$@"
