#!/usr/bin/env python3
"""Checks an execution trace written by kpn-run --trace (or RuntimeOptions::trace).

    check_trace.py TRACE.json [STATS.json]

TRACE must be valid JSON in the Chrome trace-event format: an object with "traceEvents". With STATS (the
run's --stats-json), when the trace dropped nothing, it must also agree with the run's totals:
  - the number of run slices ("cat": "run") equals context_switches;
  - failed steal attempts (the "attempts" of the "steal attempts" slices) plus steals ("steal" events)
    equal steal_attempts, and the "steal" events equal steals.
Always: every slice ("ph": "X") lies inside the run slice ("cat": "network"), and no two slices on one
worker's track overlap. Prints one line per failed check and exits 1 if any failed, 0 otherwise.
"""
import json
import sys

# Timestamps are microseconds printed with three decimals (whole nanoseconds); sums of two of them may be
# off by a rounding error of the float arithmetic, never by a nanosecond.
EPS = 0.0005


def check(trace, stats):
    problems = []
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        return ["no traceEvents list"]
    runs = [e for e in events if e.get("ph") == "X" and e.get("cat") == "network"]
    if len(runs) != 1:
        return [f"expected one run slice (cat network), found {len(runs)}"]
    run_begin = runs[0]["ts"]
    run_end = run_begin + runs[0]["dur"]
    workers = {e["tid"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"
               and e["args"]["name"].startswith("worker")}
    slices = {}
    for e in events:
        if e.get("ph") != "X" or e.get("cat") == "network":
            continue
        if e["dur"] < 0:
            problems.append(f"negative duration: {e}")
        if e["ts"] < run_begin - EPS or e["ts"] + e["dur"] > run_end + EPS:
            problems.append(f"slice outside the run [{run_begin}, {run_end}]: {e}")
        if e["tid"] not in workers:
            problems.append(f"slice on a track that is not a worker's: {e}")
        slices.setdefault(e["tid"], []).append(e)
    for tid, track in slices.items():
        track.sort(key=lambda e: (e["ts"], e["dur"]))
        for a, b in zip(track, track[1:]):
            if b["ts"] < a["ts"] + a["dur"] - EPS:
                problems.append(f"worker {tid}: slices overlap: {a} and {b}")
                break
    dropped = trace.get("otherData", {}).get("dropped_events", 0)
    if stats is not None and dropped == 0:
        run_slices = sum(1 for e in events if e.get("ph") == "X" and e.get("cat") == "run")
        if run_slices != stats["context_switches"]:
            problems.append(f"{run_slices} run slices but {stats['context_switches']} context switches")
        failed = sum(e["args"]["attempts"] for e in events if e.get("ph") == "X" and e.get("cat") == "steal")
        steals = sum(1 for e in events if e.get("ph") == "i" and e.get("name") == "steal")
        if failed + steals != stats["steal_attempts"]:
            problems.append(f"{failed} failed steal attempts and {steals} steals traced, "
                            f"but {stats['steal_attempts']} steal attempts counted")
        if steals != stats["steals"]:
            problems.append(f"{steals} steals traced but {stats['steals']} counted")
    return problems


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            trace = json.load(f)
        stats = None
        if len(argv) == 3:
            with open(argv[2], encoding="utf-8") as f:
                stats = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_trace: {e}")
        return 1
    problems = check(trace, stats)
    for p in problems[:20]:
        print(f"check_trace: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
