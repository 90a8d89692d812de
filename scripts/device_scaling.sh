#!/usr/bin/env bash
# The scaling measurements that need a machine with many CPUs (issue 12's 16-CPU rows; docs/experiments.md,
# "On 8 and 16 CPUs"), in one call of the lent device machine, from a bundle made here first:
#
#   bash scripts/device_bundle.sh [NAME=REV[+PATCH] ...]   # on this machine: .dev/, with builds to compare
#   run: bash scripts/device_scaling.sh   carry: [".dev"]   timeout_s: 560
#
# Steps, each under its own time limit so that one slow step leaves the others' results:
#   1. scripts/sg_variants.py on 16 and then 8 CPUs: `handoff` of this build (now), of every other build
#      in the bundle (NAME) and `ws-last`, alternated run by run: speedup, steal attempts per second, wake-ups,
#      CPU-seconds per second, then the idle case.
#   2. tools/experiment.py: the paper's experiments 1 and 2 for ws-cur, ws-last and handoff on 16 CPUs
#      (configs/experiments/6-handoff.yaml, 7-handoff-workers.yaml), tables and figures.
# Output under $OUT: log.txt (everything printed), r/ (raw runs, the experiments' folders), all.tgz (r/ packed
# after every step). Settings by environment: CPUS_LIST (default "16 8"), REPS (7), EXP_REPEAT (3), EXP=0 to
# skip step 2. chrt is refused on the device machine, so nothing runs real-time: compare within one call.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/device-out}
mkdir -p "$O/r"
exec > >(tee "$O/log.txt") 2>&1
pack() { tar czf "$O/all.tgz" -C "$O" r; }
step() {
  local limit=$1; shift
  echo "== $(date -u +%T) $*"
  timeout "$limit" "$@"
  echo "== rc $?"
  pack
}

date -u
uname -r
nproc
lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node|L3" || true
[[ -x .dev/now/bin/kpn-run ]] || { echo "no .dev/now/bin/kpn-run: run scripts/device_bundle.sh here and carry .dev"; exit 3; }
for r in .dev/*/REVISION; do echo "$r: $(cat "$r")"; done
.dev/now/bin/kpn-run --version || exit 3
python3 -c 'import yaml, matplotlib' || echo "python3 lacks yaml or matplotlib: step 2 will fail"

variants=(--variant now=handoff --variant ws-last=ws-last)
for b in .dev/*/bin/kpn-run; do
  name=${b#.dev/}; name=${name%%/*}
  [[ $name == now ]] || variants+=(--variant "$name=handoff@$b")
done
for c in ${CPUS_LIST:-16 8}; do
  if ((c > $(nproc))); then echo "== skipped: $c CPUs, the machine has $(nproc)"; continue; fi
  step 150 python3 scripts/sg_variants.py --cpus "$c" --reps "${REPS:-7}" --bin .dev/now/bin/kpn-run \
    --raw "$O/r/sg$c.jsonl" "${variants[@]}"
done
if [[ ${EXP:-1} != 0 ]]; then
  step 200 python3 tools/experiment.py configs/experiments/6-handoff.yaml configs/experiments/7-handoff-workers.yaml \
    --cpus "$(( $(nproc) < 16 ? $(nproc) : 16 ))" --repeat "${EXP_REPEAT:-3}" --bin .dev/now/bin --out "$O/r/exp"
fi
date -u
