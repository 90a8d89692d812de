#!/usr/bin/env python3
"""kpn-run --distributed under ThreadSanitizer (a build with KPN_SANITIZE=thread): a few networks on 2 ranks
whose output must equal a run on one machine, and a process failing on one rank, with no ThreadSanitizer
report. Open MPI's own internals are suppressed (openmpi.tsan.supp); kpn's code is not.

    tsan_runs.py KPN_RUN SOURCE_DIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    kpn_run, src = sys.argv[1], sys.argv[2]
    env = dict(os.environ)
    env["TSAN_OPTIONS"] = f"suppressions={HERE}/openmpi.tsan.supp halt_on_error=0 report_signal_unsafe=0 exitcode=66"
    mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-x", "TSAN_OPTIONS", "-np", "2"]
    networks = [
        ["configs/pipeline.yaml", "--set", "count=5000", "--set", "capacity=4"],
        ["configs/scatter-gather.yaml", "--set", "workers=8", "--set", "rounds=40", "--set", "work_us=10"],
        ["tests/distributed/ring-round-robin.yaml", "--set", "nodes=4", "--set", "laps=200"],
    ]
    failures = []
    for net in networks:
        path, *sets = net
        args = [kpn_run, os.path.join(src, path), *sets, "-q", "--cpus", "2"]
        alone = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
        spread = subprocess.run(mpirun + args + ["--distributed"], capture_output=True, text=True, timeout=240, env=env)
        reports = spread.stderr.count("WARNING: ThreadSanitizer")
        ok = spread.returncode == 0 and reports == 0 and sorted(spread.stdout.splitlines()) == sorted(alone.stdout.splitlines())
        print(f"{'ok  ' if ok else 'FAIL'} {path} on 2 ranks: exit {spread.returncode}, {reports} ThreadSanitizer reports")
        if not ok:
            failures.append(path)
            sys.stdout.write(spread.stderr[-6000:])
    # A process that throws on rank 1: every rank stops, exit 1, no report on the way.
    throw = [kpn_run, os.path.join(src, "tests/distributed/throw-across.yaml"), "--distributed", "-q", "--set",
             f"input={src}/README.md"]
    p = subprocess.run(mpirun + throw, capture_output=True, text=True, timeout=240, env=env)
    reports = p.stderr.count("WARNING: ThreadSanitizer")
    ok = p.returncode == 1 and reports == 0 and "process 'writer' failed" in p.stderr
    print(f"{'ok  ' if ok else 'FAIL'} a process failing on rank 1: exit {p.returncode}, {reports} ThreadSanitizer reports")
    if not ok:
        failures.append("throw-across")
        sys.stdout.write(p.stderr[-6000:])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
