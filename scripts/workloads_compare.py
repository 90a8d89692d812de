#!/usr/bin/env python3
"""Two builds of kpn-run on the side-by-side workloads, alternated run by run, medians.

    python3 scripts/workloads_compare.py BEFORE_BUILD AFTER_BUILD [--rounds 5] [--scheduler NAME] [--no-chrt]

BEFORE_BUILD and AFTER_BUILD are build directories (their bin/kpn-run, which finds its own libkpn). Each
round runs, for each build in turn (the order swapped every other round): the 8-stage pipeline with capacity
64 on 2 CPUs and with capacity 1 on 1 CPU (M msg/s through it), and scatter-gather, 64 workers x 2000 rounds,
at 1 and 10 us per message on 2 CPUs (W/wall, against each run's own T0). Under `chrt -f 10 taskset` unless
--no-chrt. A benchmark, not a test: it prints numbers and asserts nothing.
"""
import argparse
import os
import statistics

from kpn_stats import run_stats

WORKLOADS = [  # (name, config, cpus, --set values, figure from wall seconds)
    ("pipeline c64, 2 CPUs (M msg/s)", "pipeline.yaml", 2, ["count=1000000", "capacity=64"], lambda s: 1 / s),
    ("pipeline c1, 1 CPU (M msg/s)", "pipeline.yaml", 1, ["count=1000000", "capacity=1"], lambda s: 1 / s),
    ("scatter-gather 1 us, 2 CPUs (W/wall)", "scatter-gather.yaml", 2,
     ["workers=64", "rounds=2000", "work_us=1"], lambda s: 0.128 / s),
    ("scatter-gather 10 us, 2 CPUs (W/wall)", "scatter-gather.yaml", 2,
     ["workers=64", "rounds=2000", "work_us=10"], lambda s: 1.28 / s),
]


def wall(build, config, cpus, sets, scheduler, chrt):
    return run_stats(os.path.join(build, "bin/kpn-run"), os.path.join("configs", config), cpus, sets, scheduler,
                     chrt)["wall_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scheduler", help="the policy for both (default: the default)")
    ap.add_argument("--no-chrt", action="store_true")
    a = ap.parse_args()
    figures = {}
    for r in range(a.rounds):
        order = [a.before, a.after] if r % 2 == 0 else [a.after, a.before]
        for name, config, cpus, sets, figure in WORKLOADS:
            for build in order:
                figures.setdefault((name, build), []).append(figure(wall(build, config, cpus, sets, a.scheduler,
                                                                          not a.no_chrt)))
    print(f"median of {a.rounds} alternated rounds (range); higher is better")
    for name, *_ in WORKLOADS:
        b, f = figures[(name, a.before)], figures[(name, a.after)]
        mb, mf = statistics.median(b), statistics.median(f)
        print(f"  {name:40s} before {mb:7.3f} ({min(b):.3f}-{max(b):.3f})  after {mf:7.3f} ({min(f):.3f}-{max(f):.3f})"
              f"  after/before {mf / mb:.3f}")


if __name__ == "__main__":
    main()
