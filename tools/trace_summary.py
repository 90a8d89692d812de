#!/usr/bin/env python3
"""Summarises a kpn execution trace (kpn-run --trace) as text: where each worker's time went, which processes
used the CPU, and which blocking left a worker with nothing to run. A profile of the scheduler, not of the
code: the numbers come from the trace's slices, so they hold on a machine without hardware counters.

    tools/trace_summary.py TRACE.json [--window START_MS END_MS] [--top N] [--gap-us US] [--no-group] [--json]

Per worker, the run's wall time (the `run` slice, or the window) splits into: running processes (their
slices), searching (the failed steal attempts' slices), sleeping (the `sleep` slices of policies that let
idle workers sleep) and between: the rest, the worker's own code between two slices (picking the next
process, the switch) and any search or spin the trace does not record. A process's slice is wall time: if
the kernel preempts the worker's thread, the slice includes it (trace under `chrt -f 10` for the runtime
alone).

"Idle after" charges every gap of more than --gap-us (default 1) between two runs on a worker to the process
that ran before it, and to how its run ended: a process that parks on a channel and leaves its worker with
nothing queued is where the network's parallelism ran out (a barrier, a slow stage upstream).

Replicas (`worker[3]`, `stage[0]`) are grouped as `worker[*]` unless --no-group. --json prints the same
figures as one JSON object (times in microseconds).
"""
import argparse
import gzip
import json
import re
import statistics
import sys

REPLICA = re.compile(r"^(.*)\[\d+\]$")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def family(name, group):
    if not group:
        return name
    m = REPLICA.match(name)
    return m.group(1) + "[*]" if m else name


def clip(e, lo, hi):
    """The part of slice `e` inside [lo, hi] (microseconds), as (start, end), or None."""
    s, t = max(e["ts"], lo), min(e["ts"] + e.get("dur", 0.0), hi)
    return (s, t) if t > s or (t == s and lo <= e["ts"] <= hi) else None


def summarise(doc, window=None, gap_us=1.0, group=True):
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    run = next((e for e in events if e.get("ph") == "X" and e.get("cat") == "network"), None)
    if run is None:
        raise ValueError("no run slice (cat network): not a kpn trace")
    lo, hi = run["ts"], run["ts"] + run["dur"]
    if window:
        lo, hi = run["ts"] + window[0] * 1000.0, min(hi, run["ts"] + window[1] * 1000.0)
        if hi <= lo:
            raise ValueError("the window lies outside the run")
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    workers = sorted(t for t, n in names.items() if n.startswith("worker"))
    title = next((e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"), "")

    per = {t: {"running_us": 0.0, "searching_us": 0.0, "sleeping_us": 0.0, "runs": 0, "steals": 0,
               "processes_stolen": 0, "ends": {}} for t in workers}
    slices = {t: [] for t in workers}
    procs = {}
    for e in events:
        t = e.get("tid")
        if t not in per:
            continue
        ph, cat = e.get("ph"), e.get("cat")
        if ph == "i" and e.get("name") == "steal" and lo <= e["ts"] <= hi:
            per[t]["steals"] += 1
            per[t]["processes_stolen"] += e.get("args", {}).get("processes", 0)
            continue
        if ph != "X":
            continue
        part = clip(e, lo, hi)
        if part is None:
            continue
        d = part[1] - part[0]
        if cat == "run":
            w = per[t]
            w["running_us"] += d
            w["runs"] += 1
            end = e.get("args", {}).get("end", "?")
            w["ends"][end] = w["ends"].get(end, 0) + 1
            p = procs.setdefault(family(e["name"], group), {"runs": 0, "cpu_us": 0.0, "ends": {}, "names": set()})
            p["runs"] += 1
            p["cpu_us"] += d
            p["ends"][end] = p["ends"].get(end, 0) + 1
            p["names"].add(e["name"])
            slices[t].append((part[0], part[1], e))
        elif cat == "steal":
            per[t]["searching_us"] += d
        elif cat == "idle":
            per[t]["sleeping_us"] += d

    idle = {}
    for t in workers:
        s = sorted(slices[t], key=lambda x: x[0])
        for (_, a_end, a), (b_start, _, _) in zip(s, s[1:]):
            gap = b_start - a_end
            if gap <= gap_us:
                continue
            args = a.get("args", {})
            how = args.get("end", "?")
            if how == "park":
                channel = args.get("channel")
                how = f"park: {args.get('wait', '?')} {channel}" if channel else "park: no channel (a sleep, a select)"
            key = (family(a["name"], group), how if not group else re.sub(r"\[\d+\]", "[*]", how))
            g = idle.setdefault(key, [])
            g.append(gap)

    span = hi - lo
    out = {"title": title, "span_us": span, "workers": [], "processes": [], "idle_after": []}
    for t in workers:
        w = per[t]
        between = max(0.0, span - w["running_us"] - w["searching_us"] - w["sleeping_us"])
        out["workers"].append({"name": names[t], "between_us": between, **w})
    for name, p in sorted(procs.items(), key=lambda kv: -kv[1]["cpu_us"]):
        out["processes"].append({"name": name, "processes": len(p["names"]), "runs": p["runs"],
                                 "cpu_us": p["cpu_us"], "ends": p["ends"]})
    for (name, how), gaps in sorted(idle.items(), key=lambda kv: -sum(kv[1])):
        out["idle_after"].append({"process": name, "end": how, "gaps": len(gaps), "idle_us": sum(gaps),
                                  "median_us": statistics.median(gaps), "longest_us": max(gaps)})
    return out


def pct(x, span):
    return f"{100.0 * x / span:5.1f} %" if span > 0 else "    -"


def ends_text(ends):
    order = ["park", "lock", "yield", "exit"]
    keys = order + sorted(k for k in ends if k not in order)
    return " ".join(f"{k} {ends[k]:,}" for k in keys if ends.get(k))


def print_text(s, top, gap_us, path):
    span = s["span_us"]
    runs = sum(w["runs"] for w in s["workers"])
    steals = sum(w["steals"] for w in s["workers"])
    print(f"{path}: {s['title'] or 'kpn run'}, {span / 1000:.3f} ms, {runs:,} process runs, {steals:,} steals")
    print()
    head = f"{'worker':<18} {'running':>8} {'searching':>10} {'sleeping':>9} {'between':>8} {'runs':>9}  runs ended by"
    print(head)
    tot = {"running_us": 0.0, "searching_us": 0.0, "sleeping_us": 0.0, "between_us": 0.0}
    for w in s["workers"]:
        for k in tot:
            tot[k] += w[k]
        print(f"{w['name']:<18} {pct(w['running_us'], span):>8} {pct(w['searching_us'], span):>10} "
              f"{pct(w['sleeping_us'], span):>9} {pct(w['between_us'], span):>8} {w['runs']:>9,}  {ends_text(w['ends'])}")
    n = max(1, len(s["workers"]))
    print(f"{'all workers':<18} {pct(tot['running_us'] / n, span):>8} {pct(tot['searching_us'] / n, span):>10} "
          f"{pct(tot['sleeping_us'] / n, span):>9} {pct(tot['between_us'] / n, span):>8} {runs:>9,}")
    print()
    print(f"Idle after (gaps of more than {gap_us:g} us between two runs on a worker, charged to the run before):")
    if not s["idle_after"]:
        print("  none")
    for g in s["idle_after"][:top]:
        print(f"  {g['process']:<20} {g['gaps']:>7,} gaps {g['idle_us'] / 1000:9.3f} ms  median {g['median_us']:8.1f} us"
              f"  longest {g['longest_us']:9.1f} us  after: {g['end']}")
    print()
    print("Processes by time running (a process's runs are wall time on its worker):")
    for p in s["processes"][:top]:
        many = f" ({p['processes']:,} processes)" if p["processes"] > 1 else ""
        print(f"  {p['name'] + many:<34} {p['runs']:>9,} runs {p['cpu_us'] / 1000:9.3f} ms "
              f"{pct(p['cpu_us'], span * n):>8} of the workers' time  mean run {p['cpu_us'] / p['runs']:8.2f} us"
              f"  {ends_text(p['ends'])}")
    if len(s["processes"]) > top:
        print(f"  ... {len(s['processes']) - top} more (--top)")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--window", nargs=2, type=float, metavar=("START_MS", "END_MS"))
    ap.add_argument("--top", type=int, default=10, help="rows of the process and idle tables (default 10)")
    ap.add_argument("--gap-us", type=float, default=1.0, help="shortest gap counted as idle (default 1 us)")
    ap.add_argument("--no-group", action="store_true", help="list replicas one by one")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = ap.parse_args(argv[1:])
    if a.window and a.window[1] <= a.window[0]:
        ap.error("--window: END_MS must be after START_MS")
    try:
        s = summarise(load(a.trace), a.window, a.gap_us, not a.no_group)
    except (OSError, ValueError, KeyError) as e:
        print(f"{a.trace}: {e}", file=sys.stderr)
        return 1
    if a.json:
        json.dump(s, sys.stdout, indent=1)
        print()
    else:
        print_text(s, a.top, a.gap_us, a.trace)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
