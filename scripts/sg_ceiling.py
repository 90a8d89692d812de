#!/usr/bin/env python3
"""Scatter-gather's W/wall on 2 CPUs against this machine's ceiling for the same work, alternated run by run.

    python3 scripts/sg_ceiling.py [--reps 7] [--build build] [--scheduler NAME ...] [--no-chrt]

The ceiling is `kpn-bench --only work-ceiling-2cpu`: the same 64 x 2000 messages of 1 and 10 us of
kpn::work burnt by two pinned threads with no runtime at all. All use one T0 (kpn-run --measure-t0, once),
so the ratio kpn / ceiling is what the runtime costs; the ceiling itself is what the two CPUs give when both
compute (2.00 only if they do not slow each other down). Between the two lies the exchange ceiling
(`kpn-bench --only exchange-ceiling-2cpu`): the same messages also moved between the two threads through
lock-guarded one-line channels, 32 workers on each CPU, nothing scheduled: what is left once every message
that crosses has moved its channel's line, as kpn's channels must. Each rep also asks the host what it takes
(`kpn-bench --only host-stalls-2cpu`: the share of each CPU that two clock-reading threads did not get), so
that a sitting whose ceilings sit low says why. Runs under `chrt -f 10 taskset -c 0,1` unless
--no-chrt (chrt needs root). A benchmark, not a test: it prints numbers and asserts nothing.
"""
import argparse
import json
import os
import statistics
import subprocess

from kpn_stats import run_stats


def prefix(chrt):
    return (["chrt", "-f", "10"] if chrt else []) + ["taskset", "-c", "0,1"]


def kpn_sg(build, scheduler, work_us, t0, chrt):
    stats = run_stats(os.path.join(build, "bin/kpn-run"), "configs/scatter-gather.yaml", 2,
                      ["workers=64", "rounds=2000", f"work_us={work_us}"], scheduler, chrt, ["--t0", str(t0)])
    return 64 * 2000 * work_us / 1e6 / stats["wall_s"]


def ceiling(build, bench, t0, chrt):
    out = subprocess.run(prefix(chrt) + [os.path.join(build, "bin/kpn-bench"), "--only", bench,
                                         "--reps", "1", "--t0", str(t0), "--json"],
                         check=True, capture_output=True, text=True).stdout
    m = json.loads(out.splitlines()[-1])["metrics"]
    return {1: m["w1_work_per_wall"]["median"], 10: m["w10_work_per_wall"]["median"]}


CEILINGS = {"ceiling": "work-ceiling-2cpu", "exchange": "exchange-ceiling-2cpu"}


def host_stalls(build, chrt):
    """The share of each CPU the machine took from two pinned clock-reading threads: median, max (percent)."""
    out = subprocess.run(prefix(chrt) + [os.path.join(build, "bin/kpn-bench"), "--only", "host-stalls-2cpu",
                                         "--reps", "1", "--json"],
                         check=True, capture_output=True, text=True).stdout
    m = json.loads(out.splitlines()[-1])["metrics"]["stalled_share"]
    return m["median"], m["max"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--build", default="build")
    ap.add_argument("--scheduler", action="append", help="a policy to measure (repeatable; default: the default)")
    ap.add_argument("--no-chrt", action="store_true")
    a = ap.parse_args()
    chrt = not a.no_chrt
    t0 = float(subprocess.run([os.path.join(a.build, "bin/kpn-run"), "--measure-t0"], check=True,
                              capture_output=True, text=True).stdout.split()[-1])
    policies = a.scheduler or [""]
    samples = {}
    stalls = []
    for _ in range(a.reps):
        stalls.append(host_stalls(a.build, chrt))
        for name, bench in CEILINGS.items():
            for us, value in ceiling(a.build, bench, t0, chrt).items():
                samples.setdefault((name, us), []).append(value)
        for policy in policies:
            for us in (1, 10):
                samples.setdefault((policy or "default", us), []).append(kpn_sg(a.build, policy, us, t0, chrt))
    print(f"scatter-gather, 64 workers x 2000 rounds, 2 CPUs, T0 = {t0:.4g}/s, median of {a.reps} (range):")
    print(f"  the host took {statistics.median(s for s, _ in stalls):.2f} % of each CPU "
          f"(kpn-bench --only host-stalls-2cpu, median of {len(stalls)}; at most {max(m for _, m in stalls):.2f} %)")
    for us in (1, 10):
        top = statistics.median(samples[("ceiling", us)])
        exchange = statistics.median(samples[("exchange", us)])
        for name in list(CEILINGS) + [p or "default" for p in policies]:
            v = samples[(name, us)]
            m = statistics.median(v)
            share = "" if name == "ceiling" else f"  {m / top:.3f} of the ceiling"
            if name not in CEILINGS:
                share += f", {m / exchange:.3f} of the exchange ceiling"
            print(f"  {us:2d} us  {name:10s} W/wall {m:.3f} ({min(v):.3f} to {max(v):.3f}){share}")


if __name__ == "__main__":
    main()
