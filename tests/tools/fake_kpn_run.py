#!/usr/bin/python3
"""A stand-in for build/bin/kpn-run that reports wall times it is told to, for testing tools/experiment.py's
sanity checks (tests/tools/experiment_checks_test.cpp): `experiment.py --runner tests/tools/fake_kpn_run.py`.

It takes the options the driver passes and runs nothing:

    fake_kpn_run.py --version           prints `kpn-run 9.8.7 (fake)`
    fake_kpn_run.py --measure-t0        prints 1e8
    fake_kpn_run.py NETWORK --cpus C --stats-json PATH --set wall_1=W1 wall_n=WN jitter=J [...]

A run writes a report whose wall_s is W1 on 1 CPU and WN on more, times 1 + J * k for the k-th run (from 0)
of the same CPU count and --set pairs: the count is kept in the directory KPN_FAKE_STATE names (required
for runs). The other --set pairs and options are ignored. While the driver's hog (a sweep's `hog: {cpu: C}`)
runs, the report's scheduler_stats say so: {"hog_seen": 1, "hog_cpus": C}.
"""

import json
import os
import sys
from pathlib import Path


def find_hog():
    """The CPUs a running hog of tools/experiment.py (its command line holds kpn-experiment-hog) may use, as
    one number when it is a single CPU, or None when there is no hog."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if b"kpn-experiment-hog" not in (entry / "cmdline").read_bytes():
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("Cpus_allowed_list:"):
                    allowed = line.split(":", 1)[1].strip()
                    return int(allowed) if allowed.isdigit() else -1
        except OSError:
            continue
    return None


def main(argv):
    if "--version" in argv:
        print("kpn-run 9.8.7 (fake)")
        return 0
    if "--measure-t0" in argv:
        print("1e8")
        return 0
    cpus, stats, sets = None, None, {}
    i = 0
    while i < len(argv):
        if argv[i] == "--cpus":
            cpus = int(argv[i + 1])
            i += 2
        elif argv[i] == "--stats-json":
            stats = Path(argv[i + 1])
            i += 2
        elif argv[i] == "--set":
            i += 1
            while i < len(argv) and not argv[i].startswith("--"):
                key, value = argv[i].split("=", 1)
                sets[key] = value
                i += 1
        else:
            i += 1
    state = os.environ.get("KPN_FAKE_STATE")
    if cpus is None or stats is None or not state or not {"wall_1", "wall_n", "jitter"} <= set(sets):
        print("fake_kpn_run: needs --cpus, --stats-json, --set wall_1= wall_n= jitter= and KPN_FAKE_STATE",
              file=sys.stderr)
        return 2
    counter = Path(state) / ("runs-" + "-".join([str(cpus), *(f"{k}={v}" for k, v in sorted(sets.items()))]))
    k = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(k + 1))
    wall = float(sets["wall_1"] if cpus == 1 else sets["wall_n"]) * (1 + float(sets["jitter"]) * k)
    report = {"status": "ok", "wall_s": wall, "steal_attempts_per_s": 0.0, "messages": 100, "context_switches": 200}
    hog_cpus = find_hog()
    if hog_cpus is not None:  # the driver's `hog` runs beside this run: say where it is pinned
        report["scheduler_stats"] = {"hog_seen": 1, "hog_cpus": hog_cpus}
    stats.write_text(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
