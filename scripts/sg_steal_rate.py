#!/usr/bin/env python3
"""Steal attempts and W/wall of the Nornir paper's scatter-gather on 2 workers, for kpn's default policy
against ws-last (and optionally against another build's kpn-run), alternated run by run, medians.

    python3 scripts/sg_steal_rate.py [--reps 5] [--before OTHER_BUILD_DIR] [--no-chrt]

OTHER_BUILD_DIR is the build directory of another checkout (its bin/kpn-run and lib/ are used), for a
before/after comparison. Runs under `chrt -f 10 taskset -c 0,1` unless --no-chrt (chrt needs root).
A benchmark, not a test: it prints numbers and asserts nothing.
"""
import argparse
import os
import statistics

from kpn_stats import run_stats

CASES = [  # (workers, work_us, rounds): W = workers * rounds * work_us
    (50, 10, 2000),
    (64, 1, 2000),
]


def run(kpn_run, lib, scheduler, workers, work_us, rounds, chrt):
    env = dict(os.environ)
    if lib:
        env["LD_LIBRARY_PATH"] = lib
    d = run_stats(kpn_run, "configs/scatter-gather.yaml", 2,
                  [f"workers={workers}", f"rounds={rounds}", f"work_us={work_us}"], scheduler, chrt, env=env)
    w = workers * rounds * work_us / 1e6
    return w / d["wall_s"], d["steal_attempts_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--build", default="build")
    ap.add_argument("--before", help="another build directory, run with the default policy too")
    ap.add_argument("--no-chrt", action="store_true")
    a = ap.parse_args()
    variants = [("default", os.path.join(a.build, "bin/kpn-run"), None, None),
                ("ws-last", os.path.join(a.build, "bin/kpn-run"), None, "ws-last")]
    if a.before:
        variants.insert(0, ("before", os.path.join(a.before, "bin/kpn-run"), os.path.join(a.before, "lib"), None))
    for workers, work_us, rounds in CASES:
        samples = {name: [] for name, *_ in variants}
        for _ in range(a.reps):
            for name, binary, lib, sched in variants:
                samples[name].append(run(binary, lib, sched, workers, work_us, rounds, not a.no_chrt))
        print(f"scatter-gather, {workers} workers, {work_us} us per message, {rounds} rounds, 2 CPUs "
              f"(median of {a.reps}):")
        for name, _ in samples.items():
            ww = statistics.median(s[0] for s in samples[name])
            att = statistics.median(s[1] for s in samples[name])
            lo = min(s[0] for s in samples[name])
            hi = max(s[0] for s in samples[name])
            print(f"  {name:8s} W/wall {ww:.3f} ({lo:.3f} to {hi:.3f})  steal attempts/s {att:10.0f}")


if __name__ == "__main__":
    main()
