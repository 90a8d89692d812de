#!/usr/bin/env python3
"""Issue 12's targets, judged on one or more sittings of the peers' side-by-side.sh.

    python3 scripts/side_by_side_targets.py SITTING.jsonl [SITTING.jsonl ...] [--summary PATH] [--markdown]

Each SITTING.jsonl is the raw file of one run of `OUT=SITTING.jsonl bash ../shared/peers/side-by-side.sh
build 5`. Its medians are read from the peers' own summary (`summary.py` beside side-by-side.sh, by default
../shared/peers/summary.py; --summary names another copy), so this script adds only the targets: for each
row of issue 12's table, kpn's figure, Go's, their ratio and whether the target is met, per sitting. The
two scatter-gather rows are judged on kpn's W/wall itself (ideal 2), the others on the ratio to Go.
--markdown prints the table as docs/performance.md has it. A benchmark report, not a test: it only reads.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (summary.py's figure, the target as docs/performance.md words it, judged on, bound, better)
#   judged on: "ratio" (kpn / Go) or "kpn" (kpn's own figure); better: "low" (<= bound) or "high" (>= bound).
# "No worse than before" is the ratio to Go the table gave before `handoff`: yield 51 / 59 ns,
# ping-pong on one worker 149 / 254 ns.
TARGETS = [
    ("pingpong-T2 ns", "ping-pong round trip, 2 workers: ≤ 0.8 x Go", "ratio", 0.8, "low"),
    ("chain wall s", "chain of 100,000: wall ≤ 1.0 x Go", "ratio", 1.0, "low"),
    ("chain MiB", "chain of 100,000: peak RSS ≤ 1.6 x Go", "ratio", 1.6, "low"),
    ("pipe-c1-T1 Mmsg/s", "pipeline, capacity 1, 1 worker: ≥ 2 x Go's msg/s", "ratio", 2.0, "high"),
    ("pipe-c64-T2 Mmsg/s", "pipeline, capacity 64, 2 workers: ≥ 2 x Go's msg/s", "ratio", 2.0, "high"),
    ("yield ns", "yield, 1 worker: no worse than before (0.86 x Go)", "ratio", 51 / 59, "low"),
    ("pingpong-T1 ns", "ping-pong, 1 worker: no worse than before (0.59 x Go)", "ratio", 149 / 254, "low"),
    ("sg-w1-T2 W/wall", "scatter-gather n = 64, 2 workers: W/wall ≥ 1.8 at 1 us", "kpn", 1.8, "high"),
    ("sg-w10-T2 W/wall", "scatter-gather n = 64, 2 workers: W/wall ≥ 1.96 at 10 us", "kpn", 1.96, "high"),
]
UNITS = {"ns": " ns", "s": " s", "MiB": " MiB", "Mmsg/s": " M/s", "W/wall": ""}


def medians(summary, jsonl):
    """{figure: {peer: median}} from summary.py's table for one sitting."""
    out = subprocess.run([sys.executable, summary, jsonl], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    header = lines[0].split()
    peers = header[1:header.index("kpn/go")]  # figure kpn go fiber tokio kpn/go ...
    table = {}
    for line in lines[1:]:
        # A figure's name has spaces in it ("chain wall s"): the peers' columns follow it.
        name = next((t[0] for t in TARGETS if line.startswith(t[0] + " ")), None)
        if name is not None:
            values = line[len(name):].split()[:len(peers)]
            table[name] = {p: float(v) for p, v in zip(peers, values) if v != "nan"}
    return table


def judge(target, fig):
    name, _, on, bound, better = target
    if "kpn" not in fig or (on == "ratio" and "go" not in fig):
        return None, None
    value = fig["kpn"] / fig["go"] if on == "ratio" else fig["kpn"]
    return value, (value <= bound if better == "low" else value >= bound)


def cell(target, fig):
    name = target[0]
    unit = UNITS[name.split()[-1]]
    value, met = judge(target, fig)
    if value is None:
        return "-", None
    kpn, go = fig["kpn"], fig.get("go")
    pair = f"{kpn:.3f} / {go:.3f}{unit}" if go is not None else f"{kpn:.3f}{unit}"
    ratio = f", {kpn / go:.2f} x" if go is not None else ""
    return pair + ratio, met


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sittings", nargs="+", help="raw JSONL files of side-by-side.sh, one per sitting")
    ap.add_argument("--summary", default=os.path.join(HERE, "..", "..", "shared", "peers", "summary.py"),
                    help="the peers' summary.py (default: ../shared/peers/summary.py)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    a = ap.parse_args()
    if not os.path.exists(a.summary):
        sys.exit(f"side_by_side_targets: {a.summary}: no such file (the peers' summary.py; see --summary)")
    sittings = [medians(a.summary, f) for f in a.sittings]
    rows = []
    for t in TARGETS:
        cells = [cell(t, s.get(t[0], {})) for s in sittings]
        verdicts = [m for _, m in cells if m is not None]
        met = sum(verdicts)
        verdict = ("yes" if met == len(verdicts) else "**no**" if met == 0 else
                   f"in {met} sittings of {len(verdicts)}") if verdicts else "-"
        rows.append((t[1], [c for c, _ in cells], verdict))
    names = [os.path.basename(f) for f in a.sittings]
    if a.markdown:
        print("| target | " + " | ".join(names) + " | met |")
        print("|---" * (len(names) + 2) + "|")
        for target, cells, verdict in rows:
            print(f"| {target} | " + " | ".join(cells) + f" | {verdict} |")
        return
    width = max(len(r[0]) for r in rows)
    for target, cells, verdict in rows:
        print(f"{target:{width}}  " + "  ".join(f"{c:30}" for c in cells) + f"  {verdict.strip('*')}")


if __name__ == "__main__":
    main()
