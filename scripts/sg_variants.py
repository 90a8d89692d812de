#!/usr/bin/env python3
"""Policies and runtime settings side by side on the Nornir paper's scatter-gather, on N CPUs, alternated
run by run, medians: speedup over one CPU (`ws-last` on 1 CPU, one run per grain), steal attempts per second,
the idle-worker counters, and CPU-seconds per second of wall (user + system, from the kernel). Then the
idle case (one worker process, 100 us per message): CPU-seconds per second of wall for each variant.

    python3 scripts/sg_variants.py --cpus 16 [--reps 5] [--chrt] \\
        --variant before=handoff:KPN_IDLE_SPIN_MAX_US=10 --variant now=handoff --variant ws-last=ws-last

A variant is NAME=POLICY[:VAR=VALUE[,VAR=VALUE...]][@KPN_RUN], the environment set for its runs (the idle
spin's KPN_IDLE_SPIN_US and KPN_IDLE_SPIN_MAX_US, docs/schedulers.md) and, after @, another build's kpn-run
(default --bin): two builds of the library compared in one alternated sitting, e.g.
`--variant before=handoff@../kpn-before/build/bin/kpn-run --variant now=handoff`. Every run also goes, as one JSON line, to
--raw (default sg_variants.jsonl). This is how the 16-CPU tables of docs/experiments.md ("Why handoff
lost at 10 us on 16 CPUs") were measured. A benchmark, not a test: it prints numbers and asserts nothing.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess

from kpn_stats import run_stats

GRAINS = [(50, 1, 10000), (50, 10, 2000), (250, 10, 400), (50, 100, 200)]  # (workers, work_us, rounds)


def parse_variant(text):
    name, _, spec = text.partition("=")
    spec, _, binary = spec.partition("@")
    policy, _, env = spec.partition(":")
    settings = dict(kv.split("=", 1) for kv in env.split(",") if kv)
    return name, policy, settings, binary or None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpus", type=int, required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--variant", action="append", required=True, type=parse_variant)
    ap.add_argument("--bin", default="build/bin/kpn-run")
    ap.add_argument("--chrt", action="store_true", help="run under chrt -f 10 (root)")
    ap.add_argument("--raw", default="sg_variants.jsonl")
    args = ap.parse_args()
    t0 = subprocess.run([args.bin, "--measure-t0"], capture_output=True, text=True, check=True).stdout.split()[-1]
    with open(args.raw, "w") as raw:
        measure(args, t0, raw)


def measure(args, t0, raw):
    """Every grain's alternated runs, then the idle case; prints the medians, writes every run to `raw`."""

    def run(variant, cpus, workers, work_us, rounds):
        name, policy, settings, binary = variant
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        d = run_stats(binary or args.bin, "configs/scatter-gather.yaml", cpus,
                      [f"workers={workers}", f"rounds={rounds}", f"work_us={work_us}"], policy, args.chrt,
                      extra=("--t0", t0), env=dict(os.environ, **settings))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rec = {"variant": name, "cpus": cpus, "workers": workers, "work_us": work_us, "rounds": rounds,
               "wall_s": d["wall_s"], "cpu_s": cpu, "steal_attempts_per_s": d["steal_attempts_per_s"],
               "scheduler_stats": d.get("scheduler_stats", {}), "cross_worker_share": d["cross_worker_share"]}
        raw.write(json.dumps(rec) + "\n")
        raw.flush()
        return rec

    one_cpu = ("1 CPU", "ws-last", {}, None)
    for workers, work_us, rounds in GRAINS:
        t1 = run(one_cpu, 1, workers, work_us, rounds)["wall_s"]
        runs = {v[0]: [] for v in args.variant}
        for rep in range(args.reps):
            for k in range(len(args.variant)):
                v = args.variant[(rep + k) % len(args.variant)]
                runs[v[0]].append(run(v, args.cpus, workers, work_us, rounds))
        for name, rs in runs.items():
            rs.sort(key=lambda r: r["wall_s"])
            med = rs[len(rs) // 2]
            s = med["scheduler_stats"]
            print(f"{args.cpus} CPUs n={workers} w={work_us}us {name:12} speedup {t1 / med['wall_s']:6.2f} "
                  f"({t1 / rs[-1]['wall_s']:.2f} to {t1 / rs[0]['wall_s']:.2f})  steal attempts/s "
                  f"{med['steal_attempts_per_s']:9.3g}  wakeups {s.get('wakeups', 0):7.0f}  futex_wakes "
                  f"{s.get('futex_wakes', 0):7.0f}  CPU-s/s {med['cpu_s'] / med['wall_s']:5.2f}", flush=True)
    for v in args.variant:
        r = run(v, args.cpus, 1, 100, 4000)
        print(f"idle, {args.cpus} CPUs, {v[0]:12}: CPU-s/s {r['cpu_s'] / r['wall_s']:.2f} (wall {r['wall_s']:.3f} s)",
              flush=True)


if __name__ == "__main__":
    main()
