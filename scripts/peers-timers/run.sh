#!/usr/bin/env bash
# Timer accuracy side by side: kpn (kpn-bench --only timers-Tcpu), Go (time.Sleep) and Boost.Fiber
# (this_fiber::sleep_for), 10,000 sleeps of 1 ms each, interleaved round by round, each under
# `taskset -c 0..T-1`. The peers' programs are built into build-peers-timers/ (ignored by git).
#
#   bash scripts/peers-timers/run.sh [ROUNDS=3] [T=1]     (from kpn's root, after building build/)
#
# One JSON line per program and round; docs/performance.md ("Timer accuracy") has a table from it.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
T=${2:-1}
out=build-peers-timers
mkdir -p "$out"
g++ -std=c++20 -O2 -o "$out/fiber_sleep" scripts/peers-timers/fiber_sleep.cpp -lboost_fiber -lboost_context -pthread
GOFLAGS=-mod=mod GO111MODULE=off go build -o "$out/go_sleep" scripts/peers-timers/sleep.go
cpus=$(seq -s, 0 $((T - 1)))
for r in $(seq 1 "$rounds"); do
  taskset -c "$cpus" build/bin/kpn-bench --only "timers-${T}cpu" --reps 1 --json
  GOMAXPROCS=$T taskset -c "$cpus" "$out/go_sleep" 10000
  taskset -c "$cpus" "$out/fiber_sleep" 10000 "$T"
done
