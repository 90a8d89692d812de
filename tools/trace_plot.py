#!/usr/bin/env python3
"""Draws a kpn execution trace (kpn-run --trace) as a timeline picture, for when ui.perfetto.dev is out of
reach (an offline machine, a report, a paper).

    tools/trace_plot.py TRACE.json OUT.png [--window START_MS END_MS] [--channels N] [--title TEXT]

One row per worker: a bar for every process run (colour by process; the first process named in the legend
gets the strongest colour), grey for failed steal attempts, light blue for a sleeping worker, ticks for
steals. Below, the fill levels of up to N sampled channels (default 4, the busiest). --window zooms to a
time span in milliseconds from the start of the run. Writes OUT and, beside it, the same picture as SVG.
"""
import argparse
import json
import sys
import zlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["traceEvents"]


def colour(name, cmap):
    return cmap(zlib.crc32(name.encode()) % cmap.N)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--window", nargs=2, type=float, metavar=("START_MS", "END_MS"))
    ap.add_argument("--channels", type=int, default=4)
    ap.add_argument("--title", default=None)
    a = ap.parse_args(argv[1:])
    if a.window and a.window[1] <= a.window[0]:
        ap.error("--window: END_MS must be after START_MS")

    events = load(a.trace)
    run = next((e for e in events if e.get("ph") == "X" and e.get("cat") == "network"), None)
    if run is None:
        print(f"{a.trace}: no run slice (cat network): not a kpn trace", file=sys.stderr)
        return 1
    origin = run["ts"]
    lo, hi = (0.0, run["dur"] / 1000.0) if not a.window else tuple(a.window)
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    workers = sorted(t for t, n in names.items() if n.startswith("worker"))
    row = {t: i for i, t in enumerate(workers)}

    def ms(ts):
        return (ts - origin) / 1000.0

    def visible(e):
        return ms(e["ts"] + e.get("dur", 0)) >= lo and ms(e["ts"]) <= hi

    counters = {}
    for e in events:
        if e.get("ph") == "C" and visible(e):
            counters.setdefault(e["name"], []).append((ms(e["ts"]), e["args"]["messages"]))
    busiest = sorted(counters, key=lambda n: -max(v for _, v in counters[n]))[: a.channels]

    fig_rows = 2 if busiest else 1
    fig, axes = plt.subplots(fig_rows, 1, figsize=(12, 1.2 + 0.6 * len(workers) + (2.2 if busiest else 0)), sharex=True,
                             squeeze=False, gridspec_kw={"height_ratios": [max(1, len(workers)), 2][:fig_rows]})
    ax = axes[0][0]
    cmap = plt.get_cmap("tab20")
    bars = {}
    for e in events:
        if e.get("ph") != "X" or e.get("tid") not in row or not visible(e):
            continue
        cat = e.get("cat")
        if cat == "run":
            c = colour(e["name"], cmap)
        elif cat == "steal":
            c = (0.55, 0.55, 0.55)
        elif cat == "idle":
            c = (0.75, 0.87, 0.97)
        else:
            continue
        bars.setdefault((row[e["tid"]], c), []).append((ms(e["ts"]), max(e["dur"] / 1000.0, 1e-6)))
    for (r, c), spans in bars.items():
        ax.broken_barh(spans, (r - 0.4, 0.8), facecolors=[c], linewidth=0)
    steals = [(ms(e["ts"]), row[e["tid"]]) for e in events
              if e.get("ph") == "i" and e.get("name") == "steal" and e.get("tid") in row and visible(e)]
    if steals:
        ax.plot([s[0] for s in steals], [s[1] + 0.45 for s in steals], "v", color="black", markersize=3, label="steal")
    ax.set_yticks(range(len(workers)))
    ax.set_yticklabels([names[t] for t in workers])
    ax.set_ylim(len(workers) - 0.5, -0.5)
    ax.set_xlim(lo, hi)
    processes = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "run" and visible(e):
            processes[e["name"]] = processes.get(e["name"], 0) + e["dur"]
    legend = sorted(processes, key=lambda n: -processes[n])[:8]
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour(n, cmap)) for n in legend]
    handles += [plt.Rectangle((0, 0), 1, 1, color=(0.55, 0.55, 0.55)), plt.Rectangle((0, 0), 1, 1, color=(0.75, 0.87, 0.97))]
    ax.legend(handles, legend + ["steal attempts", "sleep"], loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8,
              title="processes (most CPU first)", title_fontsize=8)
    ax.set_title(a.title or next((e["args"]["name"] for e in events if e.get("name") == "process_name"), a.trace), fontsize=10)
    if busiest:
        cx = axes[1][0]
        for n in busiest:
            pts = counters[n]
            cx.step([p[0] for p in pts], [p[1] for p in pts], where="post", label=n[len("channel "):])
        cx.set_ylabel("messages")
        cx.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, title="channel fill (sampled)", title_fontsize=8)
    axes[-1][0].set_xlabel("time since the run started (ms)")
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    svg = a.out.rsplit(".", 1)[0] + ".svg"
    if svg != a.out:
        fig.savefig(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
