#!/bin/bash
# Issue 16's benchmark: cross-rank ping-pong, pipeline throughput, scatter-gather speedup over 2 ranks.
# Median of 5 of each, alternated; wall from --stats-json (rank 0's merged report: the slowest rank).
cd "$(dirname "$0")/.."
MPI="mpirun --allow-run-as-root --oversubscribe -np 2"
wall() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("distributed",{}).get("wall_s", d["wall_s"]))' "$1"; }
run() { local name=$1; shift; "$@" --quiet --stats-json "${TMPDIR:-/tmp}/kpn-bench-distributed.json" > /dev/null 2>&1 || echo "FAIL $name" >&2; echo "$name $(wall "${TMPDIR:-/tmp}/kpn-bench-distributed.json")"; }
for r in 1 2 3 4 5; do
  run ring1 build/bin/kpn-run tests/distributed/ring-round-robin.yaml --cpus 1 --set nodes=2 laps=20000
  run ring2 $MPI build/bin/kpn-run tests/distributed/ring-round-robin.yaml --distributed --cpus 1 --set nodes=2 laps=20000
  for c in 1 64; do
    run pipe$c-1 build/bin/kpn-run configs/pipeline.yaml --cpus 1 --set count=100000 stages=2 capacity=$c
    run pipe$c-2 $MPI build/bin/kpn-run configs/pipeline.yaml --distributed --cpus 1 --set count=100000 stages=2 capacity=$c
  done
  run sg-1x1 build/bin/kpn-run configs/scatter-gather.yaml --cpus 1 --set workers=50 rounds=100 work_us=100
  run sg-1x2 build/bin/kpn-run configs/scatter-gather.yaml --cpus 2 --set workers=50 rounds=100 work_us=100
  run sg-2x1 $MPI build/bin/kpn-run configs/scatter-gather.yaml --distributed --cpus 1 --set workers=50 rounds=100 work_us=100
done
