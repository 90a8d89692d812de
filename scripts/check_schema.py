#!/usr/bin/python3
"""Checks docs/topology.schema.json: that it is a valid JSON Schema, that every topology file of the
repository and every complete topology file shown in the docs conforms to it, and that files breaking the
rules of docs/topology.md do not. Exits 0 if all holds, 1 if not (each problem on stderr), 77 if Python
lacks jsonschema or yaml (ctest reports a skip; `bash scripts/setup.sh` installs python3-jsonschema).

    /usr/bin/python3 scripts/check_schema.py [-v]

What it checks:
  - configs/**/*.yaml and examples/**/*.yaml, except configs/experiments/ (sweep files for
    tools/experiment.py, a different format that the driver checks itself);
  - the ```yaml blocks of docs/*.md and README.md that are complete topology files (a map with both
    `network` and `processes`); the others are fragments (channel patterns, sweep files) and are skipped.
Each is read twice: with YAML types, as an editor sees it (4 is a number, true a boolean), and with every
scalar as text, as kpn's loader reads it (so that `wrap: yes`, a YAML 1.1 boolean to PyYAML but not to kpn,
is caught).
"""

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "docs" / "topology.schema.json"
SKIPPED_DIRS = ("configs/experiments",)

# Files the schema must reject, one rule of docs/topology.md each: a schema that accepted them would not
# be checking that rule.
VALID_BASE = """
network: t
params: { n: 4 }
processes:
  src: { kind: source, args: { count: $n } }
  snk: { kind: sink }
channels:
  - { from: src.out, to: snk.in }
"""
MUST_REJECT = {
    "unknown top-level key": VALID_BASE + "extra: 1\n",
    "missing network": VALID_BASE.replace("network: t\n", ""),
    "missing processes": "network: t\n",
    "unknown process key": VALID_BASE.replace("{ kind: sink }", "{ kind: sink, replica: 2 }"),
    "process without kind": VALID_BASE.replace("{ kind: sink }", "{ args: {} }"),
    "process name with a dot": VALID_BASE.replace("snk: {", "s.nk: {"),
    "replicas 0": VALID_BASE.replace("{ kind: sink }", "{ kind: sink, replicas: 0 }"),
    "replicas as text, not an integer": VALID_BASE.replace("{ kind: sink }", "{ kind: sink, replicas: 1e3 }"),
    "stack_size too small": VALID_BASE.replace("{ kind: sink }", "{ kind: sink, stack_size: 4096 }"),
    "cpu too large": VALID_BASE.replace("{ kind: sink }", "{ kind: sink, cpu: 4096 }"),
    "argument that is a list": VALID_BASE.replace("count: $n", "count: [1, 2]"),
    "a parameter default that is a reference": VALID_BASE.replace("{ n: 4 }", "{ n: $m, m: 4 }"),
    "a parameter name with a space": VALID_BASE.replace("{ n: 4 }", "{ 'n m': 4 }"),
    "channels as a map": VALID_BASE.replace("  - { from: src.out, to: snk.in }", "  a: { from: src.out, to: snk.in }"),
    "channel without to": VALID_BASE.replace(", to: snk.in", ""),
    "unknown channel key": VALID_BASE.replace("to: snk.in }", "to: snk.in, capcity: 2 }"),
    "port reference without a port": VALID_BASE.replace("from: src.out", "from: src"),
    "capacity 0": VALID_BASE.replace("to: snk.in }", "to: snk.in, capacity: 0 }"),
    "capacity +4": VALID_BASE.replace("to: snk.in }", "to: snk.in, capacity: '+4' }"),
    "wrap: yes": VALID_BASE.replace("to: snk.in }", "to: snk.in, wrap: yes }"),
    "count 0": VALID_BASE.replace("to: snk.in }", "to: snk.in, count: 0 }"),
    "a reference that is not a name": VALID_BASE.replace("to: snk.in }", "to: snk.in, capacity: $1 }"),
    "network null": VALID_BASE.replace("network: t", "network:"),
}
MUST_ACCEPT = {
    "the base": VALID_BASE,
    "every key, with references": """
network: all
description: every key
params: { n: 4, cap: 2, s: 1, w: false, first: 0, label: x, big: 65536, c: 3 }
processes:
  src: { kind: source, args: { count: $n, label: "$label" }, stack_size: $big, cpu: $c }
  work: { kind: map, replicas: $n, args: { work_us: 0.5 } }
  snk: { kind: sink, replicas: "2", cpu: 0 }
channels:
  - { from: src.out, to: "work[$first].in", capacity: $cap }
  - { from: work.out, to: work.in, shift: $s, wrap: $w }
  - from: work[-1].out
    to: "snk[ 0 ].in"
    shift: -1
    wrap: "false"
    count: 1
    capacity: 16777216
""",
}


def fail(message):
    print(f"check_schema: {message}", file=sys.stderr)


def yaml_blocks(markdown):
    """The ```yaml blocks of a Markdown text: (line of the block's first line, text)."""
    blocks, lines, start = [], markdown.splitlines(), None
    for number, line in enumerate(lines, 1):
        if start is None and line.strip() == "```yaml":
            start, body = number + 1, []
        elif start is not None and line.strip() == "```":
            blocks.append((start, "\n".join(body) + "\n"))
            start = None
        elif start is not None:
            body.append(line)
    return blocks


def errors(validator, text, yaml):
    """The schema's complaints about a YAML text, read with types and read as text; a YAML error is one."""
    found = []
    for mode, loader in (("typed", yaml.SafeLoader), ("as text", yaml.BaseLoader)):
        try:
            document = yaml.load(text, Loader=loader)
        except yaml.YAMLError as e:
            return [f"not YAML: {e}"]
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            found.append(f"{mode}: at {where}: {error.message}")
    return found


def main(argv):
    verbose = "-v" in argv
    try:
        import jsonschema
        import yaml
    except ImportError as e:
        print(f"check_schema: skipped: {e} (bash scripts/setup.sh installs python3-jsonschema)")
        return 77
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    bad = 0

    sources = []  # (name, text)
    for path in sorted([*REPO.glob("configs/**/*.yaml"), *REPO.glob("examples/**/*.yaml")]):
        relative = path.relative_to(REPO).as_posix()
        if relative.startswith(SKIPPED_DIRS):
            if verbose:
                print(f"skip {relative} (a sweep file)")
            continue
        sources.append((relative, path.read_text()))
    for doc in sorted([*REPO.glob("docs/*.md"), REPO / "README.md"]):
        for line, text in yaml_blocks(doc.read_text()):
            name = f"{doc.relative_to(REPO).as_posix()}:{line}"
            try:
                document = yaml.safe_load(text)
            except yaml.YAMLError as e:
                fail(f"{name}: a ```yaml block that is not YAML: {e}")
                bad += 1
                continue
            if isinstance(document, dict) and "network" in document and "processes" in document:
                sources.append((name, text))
            elif verbose:
                print(f"skip {name} (a fragment, not a complete topology file)")

    for name, text in sources:
        problems = errors(validator, text, yaml)
        for problem in problems:
            fail(f"{name}: {problem}")
        bad += bool(problems)
        if verbose and not problems:
            print(f"ok   {name}")
    for what, text in MUST_ACCEPT.items():
        for problem in errors(validator, text, yaml):
            fail(f"the schema rejects a valid file ({what}): {problem}")
            bad += 1
    for what, text in MUST_REJECT.items():
        if not errors(validator, text, yaml):
            fail(f"the schema accepts an invalid file ({what}):\n{text}")
            bad += 1
    checked = len(sources)
    if bad:
        fail(f"{bad} problem(s); {checked} topology files checked against {SCHEMA.relative_to(REPO)}")
        return 1
    print(f"check_schema: {checked} topology files conform to {SCHEMA.relative_to(REPO)}; "
          f"{len(MUST_REJECT)} invalid ones are rejected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
