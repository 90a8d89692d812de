#!/usr/bin/env python3
"""Checks what libkpn exports (runtime/export.hpp): names of namespace kpn, none of the run's internals,
and nothing of fmt, spdlog, yaml-cpp or any other library. A KPN_EXPORT on an internal class, or a build
that lost -fvisibility=hidden, fails here. Instantiations of standard-library templates (std::, __gnu_cxx::)
are let through: libstdc++ declares its namespaces with default visibility, so GCC exports their weak,
out-of-line template members and type information whatever the flags; they are vague-linkage copies that
any program may hold too, not kpn's interface.

usage: check_exports.py LIBKPN_SO
Prints the count of exported symbols by kind; exits 1 naming each offending symbol."""

import re
import subprocess
import sys

# Internals: the run's machinery and the loader's helpers. Programs, plugins and policies never name them.
INTERNAL = [
    "kpn::Run::", "kpn::RunShared", "kpn::WorkerThread", "kpn::DeadlockMonitor", "kpn::StackPool",
    "kpn::PooledStack", "kpn::ProcessTable", "kpn::ChannelRegistry", "kpn::StopState", "kpn::TimerQueue",
    "kpn::TraceRecorder", "kpn::write_trace", "kpn::build_report", "kpn::partition::",
    "kpn::install_fault_handler", "kpn::AltSignalStack", "kpn::did_you_mean", "kpn::nearest",
    "kpn::output_roles", "kpn::find_wait_cycle", "kpn::describe_deadlock", "kpn::choose_growth",
    "kpn::fire_due_timers", "kpn::park_sleeping", "kpn::detail::set_current_",
]
PREFIXES = re.compile(r"^(typeinfo name for|typeinfo for|vtable for|VTT for|construction vtable for|"
                      r"guard variable for|non-virtual thunk to|virtual thunk to) ")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", sys.argv[1]], capture_output=True, text=True,
                         check=True).stdout
    bad = []
    kinds = {"kpn": 0, "std": 0}
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3:
            continue
        kind, name = parts[1], parts[2]
        if kind in "AB" or name.startswith("_"):  # absolute/bss linker symbols (_init, _end, ...)
            continue
        bare = PREFIXES.sub("", name)
        if bare.startswith(("std::", "__gnu_cxx::")):
            kinds["std"] += 1
            continue
        if not bare.startswith("kpn::"):
            bad.append(f"outside namespace kpn: {name}")
            continue
        if any(bare.startswith(internal) for internal in INTERNAL):
            bad.append(f"internal: {name}")
            continue
        kinds["kpn"] += 1
    for b in bad:
        print(f"check_exports: {b}", file=sys.stderr)
    print(f"check_exports: {kinds['kpn']} symbols of kpn's API, {kinds['std']} standard-library instantiations, "
          f"{len(bad)} that should be hidden")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
