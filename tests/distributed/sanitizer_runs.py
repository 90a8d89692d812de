#!/usr/bin/env python3
"""kpn-run --distributed under a sanitizer (a build with KPN_SANITIZE=thread, address, undefined, or a
comma-separated list of them such as address,undefined): a few
networks on 2 ranks whose output must equal a run on one machine, and a process failing on one rank, with
no sanitizer report. Open MPI itself is not instrumented; what its own modules do is kept out:
ThreadSanitizer suppresses them (openmpi.tsan.supp names only Open MPI, PMIx and libevent modules), and
AddressSanitizer's leak check is off (Open MPI keeps allocations at exit), so leaks are the unsanitized
suite's and the in-process suite's to find. Every other report fails the run.

    sanitizer_runs.py thread|address|undefined|address,undefined KPN_RUN SOURCE_DIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Per sanitizer: its options variable, the options, and the text each of its reports carries.
SANITIZERS = {
    "thread": ("TSAN_OPTIONS", f"suppressions={HERE}/openmpi.tsan.supp halt_on_error=0 report_signal_unsafe=0",
               "WARNING: ThreadSanitizer"),
    "address": ("ASAN_OPTIONS", "detect_leaks=0 halt_on_error=0", "ERROR: AddressSanitizer"),
    "undefined": ("UBSAN_OPTIONS", "halt_on_error=0 print_stacktrace=1", "runtime error:"),
}


def main():
    sanitizer, kpn_run, src = sys.argv[1], sys.argv[2], sys.argv[3]
    chosen = [SANITIZERS[name] for name in sanitizer.split(",")]
    env = dict(os.environ)
    mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
    for variable, options, _ in chosen:
        env[variable] = options
        mpirun += ["-x", variable]
    mpirun += ["-np", "2"]
    markers = [marker for _, _, marker in chosen]

    def reports(text):
        return sum(text.count(marker) for marker in markers)
    networks = [
        ["configs/pipeline.yaml", "--set", "count=5000", "--set", "capacity=4"],
        ["configs/scatter-gather.yaml", "--set", "workers=8", "--set", "rounds=40", "--set", "work_us=10"],
        ["tests/distributed/ring-round-robin.yaml", "--set", "nodes=4", "--set", "laps=200"],
    ]
    failures = []

    def verdict(ok, what, p):
        print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {p.returncode}, {reports(p.stderr)} {sanitizer} sanitizer reports")
        if not ok:
            failures.append(what)
            sys.stdout.write(p.stderr[-6000:])

    for net in networks:
        path, *sets = net
        args = [kpn_run, os.path.join(src, path), *sets, "-q", "--cpus", "2"]
        alone = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
        spread = subprocess.run(mpirun + args + ["--distributed"], capture_output=True, text=True, timeout=240, env=env)
        same = sorted(spread.stdout.splitlines()) == sorted(alone.stdout.splitlines())
        verdict(spread.returncode == 0 and reports(spread.stderr) == 0 and same, f"{path} on 2 ranks", spread)
    # A process that throws on rank 1: every rank stops, exit 1, no report on the way.
    throw = [kpn_run, os.path.join(src, "tests/distributed/throw-across.yaml"), "--distributed", "-q", "--set",
             f"input={src}/README.md"]
    p = subprocess.run(mpirun + throw, capture_output=True, text=True, timeout=240, env=env)
    verdict(p.returncode == 1 and reports(p.stderr) == 0 and "process 'writer' failed" in p.stderr,
            "a process failing on rank 1", p)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
