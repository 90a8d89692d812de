#!/bin/bash
# Session 20's device call: the build with watched run queues (new) against 3fe0ed1 (base) and ws-last on
# 16 and 8 CPUs, the peers side by side on 2 of the cores, and the paper's experiments 1 and 2 for the three
# policies on 16 CPUs. Everything lands in $OUT (log.txt, all.tgz).
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O/r"
exec > >(tee "$O/log.txt") 2>&1
pack() { tar czf "$O/all.tgz" -C "$O" r; }
date -u; uname -r; nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node|L3"
if ! .dev/bin/kpn-run --version; then export KPN_CXX=1; .dev/bin/kpn-run --version || exit 3; fi
python3 -c 'import yaml, matplotlib; print("py ok")'
step() { local t=$1; shift; echo "== $(date -u +%T) $*"; timeout "$t" "$@"; echo "== rc $?"; pack; }
for c in ${CPUS_LIST:-16 8}; do
  step 150 python3 scripts/sg_variants.py --cpus $c --reps ${REPS:-7} --bin .dev/bin/kpn-run --raw "$O/r/sg$c.jsonl" \
    --variant new=handoff --variant always=handoff:KPN_X_OWE_ALWAYS=1 --variant quiet=handoff:KPN_X_QUIET=1 --variant base=handoff:KPN_LIB=.dev/lib/base --variant ws-last=ws-last
done
[ -n "${SBS:-}" ] && step 200 env RT= LD_LIBRARY_PATH=$PWD/.dev/lib/fiber OUT="$O/r/sbs.jsonl" bash .dev/peers/side-by-side.sh .dev ${SBS_ROUNDS:-3}
[ -n "${EXP:-}" ] && step 190 python3 tools/experiment.py configs/experiments/6-handoff.yaml configs/experiments/7-handoff-workers.yaml \
  --cpus ${EXP_CPUS:-16} --repeat ${EXP_REPEAT:-3} ${EXP_EXTRA:-} --bin .dev/bin --out "$O/r/exp"
date -u
