#!/usr/bin/env python3
"""Compares two builds of kpn-bench, measured alternately in one sitting so that drift on a shared machine
spreads over both: for each round and each benchmark, runs A then B (or B then A on odd rounds), each with
--reps N, and reports per benchmark and metric the median over rounds of each build's median, and B/A.

Usage: scripts/bench_compare.py BEFORE_BIN AFTER_BIN [--rounds 3] [--reps 5] [--only NAME ...] [--chrt]
                                [--before-scheduler POLICY] [--after-scheduler POLICY]
Example: sudo scripts/bench_compare.py /tmp/before/bin/kpn-bench build-bench/bin/kpn-bench --chrt
"""
import argparse
import json
import statistics
import subprocess
import sys

DEFAULT = ["yield", "pingpong-1cpu", "pingpong-2cpu", "pingpong-2cpu-apart", "spawn", "chain-1cpu", "chain-2cpu"]


def run(binary, name, reps, chrt, scheduler):
    cmd = ([("chrt"), "-f", "10"] if chrt else []) + [binary, "--only", name, "--reps", str(reps), "--json"]
    if scheduler:
        cmd += ["--scheduler", scheduler]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", nargs="*", default=DEFAULT)
    ap.add_argument("--chrt", action="store_true", help="run each benchmark under chrt -f 10 (root)")
    ap.add_argument("--before-scheduler", help="policy for the first build (default: its own default)")
    ap.add_argument("--after-scheduler", help="policy for the second build (default: its own default)")
    args = ap.parse_args()
    results = {}  # (bench, metric) -> {"A": [medians], "B": [...], "unit": ...}
    for r in range(args.rounds):
        for name in args.only:
            order = [("A", args.before, args.before_scheduler), ("B", args.after, args.after_scheduler)]
            if r % 2:
                order.reverse()
            for label, binary, scheduler in order:
                for rec in run(binary, name, args.reps, args.chrt, scheduler):
                    for metric, m in rec["metrics"].items():
                        slot = results.setdefault((rec["bench"], metric), {"A": [], "B": [], "unit": m["unit"]})
                        slot[label].append(m["median"])
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print("| benchmark | metric | before | after | after/before |")
    print("|---|---|---|---|---|")
    for (bench, metric), slot in results.items():
        if not slot["A"] or not slot["B"]:
            continue
        a, b = statistics.median(slot["A"]), statistics.median(slot["B"])
        ratio = b / a if a else float("nan")
        print(f"| {bench} | {metric} ({slot['unit']}) | {a:.4g} | {b:.4g} | {ratio:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
