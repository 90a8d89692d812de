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
# The namespace is read from the mangled name (Itanium ABI), which is exact where the demangled one is
# not: a template function's demangled name begins with its return type ("void std::deque<...>::...").
# After _Z: special-name prefixes (vtable, typeinfo, guard variable, thunks with their offsets), then a
# local entity's Z (a static inside a function: the function's name follows), a nested name's N with its
# qualifiers, then the first component: St (std::), the standard abbreviations
# Sa/Sb/Ss/Si/So/Sd, 9__gnu_cxx, or 3kpn.
_SPECIAL = r"(?:T[VTIS]|GV|T[hv][n0-9_]*?_|Tc[hv][n0-9_]*?_[hv][n0-9_]*?_)?"
_NESTED = r"Z?(?:N[rVK]*[RO]?)?"
STANDARD = re.compile(rf"^_Z{_SPECIAL}{_NESTED}(?:S[tabsiod]|9__gnu_cxx)")
KPN = re.compile(rf"^_Z{_SPECIAL}{_NESTED}3kpn")
PREFIXES = re.compile(r"^(typeinfo name for|typeinfo for|vtable for|VTT for|construction vtable for|"
                      r"guard variable for|non-virtual thunk to|virtual thunk to) ")


def qualified_name(name: str) -> str:
    """The function's qualified name without a leading return type: the text after the last space at
    template depth 0 before the parameter list ("void kpn::X::f<int>(int)" -> "kpn::X::f<int>(int)")."""
    depth = 0
    start = 0
    for i, c in enumerate(name):
        if name.startswith("operator", i):
            break
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            break
        elif c == " " and depth == 0:
            start = i + 1
    return name[start:]


# Mangled names the classification must get right, checked at every run (a wrong pattern would let a
# foreign symbol through as "standard", or fail the build on a harmless instantiation).
KNOWN = {
    "_ZNSt5dequeIN3kpn11MessageTypeESaIS1_EE16_M_push_back_auxIJS1_EEEvDpOT_": "std",  # void std::deque<..>
    "_ZNSt8__detail18__to_chars_10_implIjEEvPcjj": "std",
    "_ZZNSt8__detail18__to_chars_10_implIjEEvPcjjE8__digits": "std",  # a static inside it
    "_ZTISt9exception": "std", "_ZNKSt9bad_alloc4whatEv": "std", "_ZNSs4_Rep10_M_destroyERKSaIcE": "std",
    "_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv": "std",
    "_ZN3kpn7Runtime3runERKNS_11NetworkSpecE": "kpn", "_ZTVN3kpn9SchedulerE": "kpn",
    "_ZNK3kpn7Process4nameEv": "kpn", "_ZThn16_N3kpn10BadChannelD1Ev": "kpn",
    "_ZN4YAML4NodeD2Ev": "foreign", "_ZN3fmt2v96detail10vformat_toERNS1_6bufferIcEE": "foreign",
    "_ZN6spdlog6loggerD2Ev": "foreign",
}


def classify(mangled: str) -> str:
    if STANDARD.match(mangled):
        return "std"
    return "kpn" if KPN.match(mangled) else "foreign"


def main() -> int:
    wrong = {m: k for m, k in KNOWN.items() if classify(m) != k}
    if wrong:
        print(f"check_exports: the classification is wrong for {wrong}", file=sys.stderr)
        return 1
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = subprocess.run(["nm", "-D", "--defined-only", sys.argv[1]], capture_output=True, text=True,
                         check=True).stdout
    symbols = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3 or parts[1] in "AB":  # absolute linker symbols (_init, _end, ...)
            continue
        symbols.append(parts[2].split("@", 1)[0])
    demangled = subprocess.run(["c++filt"], input="\n".join(symbols), capture_output=True, text=True,
                               check=True).stdout.splitlines()
    bad = []
    kinds = {"kpn": 0, "std": 0}
    for mangled, name in zip(symbols, demangled):
        if mangled.startswith("_") and not mangled.startswith("_Z"):  # the linker's: _init, _fini, ...
            continue
        kind = classify(mangled)
        if kind == "std":
            kinds["std"] += 1
            continue
        if kind != "kpn":
            bad.append(f"outside namespace kpn: {name}")
            continue
        bare = qualified_name(PREFIXES.sub("", name))
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
