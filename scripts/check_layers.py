#!/usr/bin/env python3
"""The layering rule of ARCHITECTURE.md, checked mechanically.

Fails (exit 1) when a file in a layer includes a header of a higher layer, or when units inside runtime/
include each other in a circle (runtime/foo.hpp and runtime/foo.cpp are one unit). Also fails when
yaml-cpp appears outside networks/, METIS outside schedulers/ or MPI outside distributed/.

distributed/ (MPI, kpn-run --distributed) sits between networks/ and tools/.

Usage: scripts/check_layers.py [ROOT]
"""
import os
import re
import sys

ORDER = {"runtime": 0, "channels": 1, "schedulers": 2, "networks": 3, "distributed": 4, "tools": 5}
PRIVATE_DEPS = {"yaml-cpp/": "networks", "metis.h": "schedulers", "mpi.h": "distributed"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def unit(path):
    return os.path.splitext(path)[0]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = []
    edges = {}
    for layer in ORDER:
        for dirpath, _, files in os.walk(os.path.join(root, layer)):
            for name in files:
                if not name.endswith((".cpp", ".hpp", ".h", ".cc")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                with open(os.path.join(dirpath, name), errors="replace") as f:
                    text = f.read()
                for target in INCLUDE.findall(text):
                    for dep, owner in PRIVATE_DEPS.items():
                        if target.startswith(dep) and layer != owner:
                            problems.append(f"{rel}: includes <{target}>, which only {owner}/ may use")
                    top = target.split("/")[0]
                    if top not in ORDER:
                        continue
                    if ORDER[top] > ORDER[layer]:
                        problems.append(f"{rel}: includes {target}, a higher layer ({top}/ is above {layer}/)")
                    if layer == "runtime" and top == "runtime" and unit(rel) != unit(target):
                        edges.setdefault(unit(rel), set()).add(unit(target))
    # Cycles among runtime/ units: Tarjan's strongly connected components.
    index, low, on_stack, stack, counter = {}, {}, set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                problems.append("include cycle inside runtime/: " + " <-> ".join(sorted(component)))

    for v in list(edges):
        if v not in index:
            visit(v)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check_layers: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("check_layers: no upward include, no include cycle in runtime/, private dependencies kept private")
    return 0


if __name__ == "__main__":
    sys.exit(main())
