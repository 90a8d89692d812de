#!/usr/bin/env bash
# Sets up the machine (apt, idempotent), builds kpn in Release, and runs the main job: the scatter-gather
# network of seed 000 (configs/scatter-gather.yaml: 50 workers, 200 rounds, 100 us of work per message)
# through the runner, on every CPU under the default policy (handoff). Extra arguments go to kpn-run, e.g.:
#   bash scripts/run.sh --cpus 2 --scheduler ws-cur --set workers=64 --stats-json -
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/bin/kpn-run configs/scatter-gather.yaml "$@"
