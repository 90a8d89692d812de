#!/usr/bin/env python3
"""Scatter-gather on 2 workers, n = 64, on every host issue 12 was measured on: the range of kpn's W/wall
over a host's sittings of `side-by-side.sh` (medians of five rounds each), Go's range in the same sittings,
and the target. Data: data.csv beside this file, copied from the summary table of docs/performance.md.

    /usr/bin/python3 docs/results/sg-hosts/plot.py   # writes sg-hosts.png and sg-hosts.svg beside it
"""
import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent


def main():
    with open(HERE / "data.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    grains = sorted({int(r["work_us"]) for r in rows})
    fig, axes = plt.subplots(1, len(grains), figsize=(11, 4.2))
    for ax, grain in zip(axes, grains):
        mine = [r for r in rows if int(r["work_us"]) == grain]
        for i, r in enumerate(mine):
            ax.plot([i - 0.08] * 2, [float(r["kpn_low"]), float(r["kpn_high"])], color="tab:blue", lw=6,
                    solid_capstyle="butt", label="kpn (handoff)" if i == 0 else None)
            ax.plot([i + 0.08] * 2, [float(r["go_low"]), float(r["go_high"])], color="tab:gray", lw=6,
                    solid_capstyle="butt", label="Go" if i == 0 else None)
        target = float(mine[0]["target"])
        ax.axhline(target, color="tab:red", ls="--", lw=1.2, label="issue 12's target")
        ax.annotate(f"{target:g}", (len(mine) - 0.45, target), color="tab:red", fontsize=8, va="bottom", ha="right")
        ax.axhline(2.0, color="black", ls=":", lw=0.8, label="2 CPUs, no cost")
        ax.set_xticks(range(len(mine)))
        ax.set_xticklabels([f"{r['host'].replace(' (', chr(10) + '(')}\nsessions {r['sessions']}" for r in mine],
                           fontsize=6.5)
        ax.set_title(f"{grain} µs a message")
        ax.set_ylabel("W / wall (ideal 2)")
        ax.set_xlim(-0.6, len(mine) - 0.4)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Scatter-gather n = 64 on 2 workers: ranges over each host's sittings", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=4, fontsize=8, bbox_to_anchor=(0.5, 0.93))
    fig.tight_layout(rect=(0, 0, 1, 0.88))
    fig.savefig(HERE / "sg-hosts.png", dpi=110)
    fig.savefig(HERE / "sg-hosts.svg")


if __name__ == "__main__":
    main()
