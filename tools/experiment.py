#!/usr/bin/python3
"""Runs parameter sweeps of kpn networks through the runner and draws their figures.

A sweep file (YAML; see docs/experiments.md and configs/experiments/) names a network, the schedulers, the
CPU counts and a grid of parameter values. For every point of the grid, every scheduler and every CPU count,
this driver runs `kpn-run` as a separate process `--repeat` times, keeps the median run by wall time (with
that run's own steal rate and counters, as the Nornir paper does), and writes results.csv, runs.jsonl, meta.json
and a figure (PNG and SVG) to OUT/<sweep name>/. It warns on stderr, and flags the row in results.csv, where
a number cannot be right: a speedup above the CPU count, runs that spread too far, a busy machine.

    /usr/bin/python3 tools/experiment.py configs/experiments/2-workers.yaml [--quick] [--dry-run]
    /usr/bin/python3 tools/experiment.py --plot-only results/experiments/2-workers
"""

import argparse
import ast
import contextlib
import csv
import datetime
import itertools
import json
import math
import operator
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PRESETS = ("full", "paper", "quick")
# The time estimates: what one kpn-run costs beyond the work its sweep file counts (starting the program,
# its threads and its processes, in seconds), and the speedup assumed on c CPUs, c * PARALLEL_EFFICIENCY.
RUN_OVERHEAD_S = 0.02
PARALLEL_EFFICIENCY = 0.75
# The measurements kept from each run's --stats-json; the optional ones only when the runner reports them.
REQUIRED_STATS = ("wall_s", "steal_attempts_per_s", "messages", "context_switches")
OPTIONAL_STATS = ("cross_worker_messages", "cross_worker_share", "scheduler_stats")
RESULT_COLUMNS = ("scheduler", "cpus", "wall_median_s", "wall_min_s", "wall_max_s", "speedup",
                  "steal_attempts_per_s", "messages", "context_switches", "cross_worker_share", "t0", "repeat",
                  "flags")
# The sanity checks (docs/experiments.md, "Warnings"). A speedup on c CPUs above c * (1 + this) cannot come
# from kpn: the 1-CPU baseline was slowed down (a loaded machine) or the parallel run did less work. The
# tolerance absorbs the run-to-run noise of a speedup measured right at the ceiling (1.99 to 2.03 on 2 CPUs).
SPEEDUP_TOLERANCE = 0.02
# Defaults of --max-spread (a configuration's max/min wall time, minus 1) and --max-load (load per CPU
# before a sweep).
DEFAULT_MAX_SPREAD = 0.25
DEFAULT_MAX_LOAD = 0.5
# Where the load averages come from; KPN_EXPERIMENT_LOADAVG names another file of the same format (tests).
LOADAVG_PATH = os.environ.get("KPN_EXPERIMENT_LOADAVG", "/proc/loadavg")
METRIC_LABELS = {
    "speedup": "speedup over 1 CPU",
    "steal_attempts_per_s": "steal attempts per second",
    "wall_median_s": "running time (s)",
    "messages": "messages",
    "context_switches": "context switches",
    "cross_worker_share": "share of messages between workers",
}
LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P")


class SweepError(Exception):
    """A sweep file, a command line or a run that cannot be used; the message says why."""


# ---------------------------------------------------------------------------------------------------------
# Expressions: the arithmetic of sweep files, evaluated without eval().

FUNCTIONS = {"floor": math.floor, "ceil": math.ceil, "round": round, "min": min, "max": max}
BINARY_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
UNARY_OPERATORS = {ast.USub: operator.neg, ast.UAdd: operator.pos}


def evaluate(expression, names):
    """The value of `expression`: a number, or text made of numbers, `names`, + - * / // %, parentheses
    and floor/ceil/round/min/max. Anything else (attributes, other calls, strings) is a SweepError."""
    if isinstance(expression, bool) or not isinstance(expression, (int, float, str)):
        raise SweepError(f"not a number or an expression: {expression!r}")
    if not isinstance(expression, str):
        return expression
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as e:
        raise SweepError(f"bad expression {expression!r}: {e.msg}") from None
    return _evaluate_node(tree.body, names, expression)


def _evaluate_node(node, names, text):
    """Evaluates one node of an expression's syntax tree (see evaluate)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise SweepError(f"unknown name '{node.id}' in {text!r} (known: {', '.join(sorted(names))})")
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY_OPERATORS:
        left, right = _evaluate_node(node.left, names, text), _evaluate_node(node.right, names, text)
        try:
            return BINARY_OPERATORS[type(node.op)](left, right)
        except ZeroDivisionError:
            raise SweepError(f"division by zero in {text!r}") from None
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY_OPERATORS:
        return UNARY_OPERATORS[type(node.op)](_evaluate_node(node.operand, names, text))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
            and not node.keywords):
        return FUNCTIONS[node.func.id](*(_evaluate_node(a, names, text) for a in node.args))
    raise SweepError(f"not allowed in an expression: {ast.unparse(node)!r} in {text!r}")


def format_value(value):
    """A value as --set and the CSV take it: integral numbers without a decimal point, others to 10 digits."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


def parse_number(text):
    """A CSV cell as a number where it is one, None where it is empty, else the text."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# ---------------------------------------------------------------------------------------------------------
# Sweep files.

@dataclass
class Network:
    """One network of a sweep: its name (the `network` column when a sweep has several), file, parameters."""
    name: str
    file: Path
    set: dict


@dataclass
class Sweep:
    """A sweep file with one preset applied: what is needed to enumerate its runs and to draw its figure."""
    name: str
    path: Path
    preset: str
    title: str
    networks: list
    schedulers: list
    cpus: list
    constants: dict
    grid: dict
    derive: dict
    columns: list
    cost: object
    figure: dict
    hog: object = None  # the CPU a busy process is pinned to during every run (seed 004), or None


MERGED_KEYS = ("constants", "grid", "derive", "set")
SWEEP_KEYS = {"name", "title", "network", "schedulers", "cpus", "columns", "cost", "figure", "presets", "hog",
              *MERGED_KEYS}
# The hog of `hog: {cpu: C}`: a busy loop pinned to CPU C, as `taskset -c C` would pin it. Its command line
# carries HOG_MARK so that a run (and a test) can tell it is there.
HOG_MARK = "kpn-experiment-hog"
HOG_PROGRAM = "import os, sys\nos.sched_setaffinity(0, {int(sys.argv[2])})\nwhile True:\n    pass\n"


def load_sweep(path, preset):
    """Reads a sweep file and applies `preset`: the preset's mappings merge over the file's, name by name.
    `full` is the default preset and may be left out of a file (the file's own values are then full)."""
    import yaml  # here, so that --help and py_compile work without PyYAML
    path = Path(path)
    try:
        spec = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise SweepError(f"{path}: {e}") from None
    if not isinstance(spec, dict):
        raise SweepError(f"{path}: expected a mapping at the top")
    unknown = set(spec) - SWEEP_KEYS
    if unknown:
        raise SweepError(f"{path}: unknown keys {sorted(unknown)} (known: {sorted(SWEEP_KEYS)})")
    presets = spec.get("presets") or {}
    if preset not in presets and preset != "full":
        raise SweepError(f"{path}: no preset '{preset}' (it has {', '.join(presets)})")
    for key, value in (presets.get(preset) or {}).items():
        if key not in MERGED_KEYS:
            raise SweepError(f"{path}: preset '{preset}' sets '{key}'; a preset may set only {MERGED_KEYS}")
        spec[key] = {**(spec.get(key) or {}), **value}
    networks = load_networks(spec.get("network"), spec.get("set") or {}, path)
    grid = spec.get("grid") or {}
    if len(networks) > 1:
        grid = {"network": [n.name for n in networks], **grid}  # several networks: the first axis
    derive = spec.get("derive") or {}
    hog = spec.get("hog")
    if hog is not None:
        cpu = hog.get("cpu") if isinstance(hog, dict) and set(hog) == {"cpu"} else None
        if not isinstance(cpu, int) or isinstance(cpu, bool) or cpu < 0:
            raise SweepError(f"{path}: 'hog' must be {{cpu: C}} with C a CPU number (0, 1, ...), got {hog!r}")
        if hasattr(os, "sched_getaffinity") and cpu not in os.sched_getaffinity(0):
            raise SweepError(f"{path}: hog CPU {cpu} is not one this program may use "
                             f"({sorted(os.sched_getaffinity(0))})")
        hog = cpu
    return Sweep(hog=hog, name=str(spec.get("name") or path.stem), path=path, preset=preset,
                 title=str(spec.get("title") or ""), networks=networks,
                 schedulers=[str(s) for s in spec.get("schedulers") or ["ws-last"]],
                 cpus=list(spec.get("cpus") or [1, "N"]), constants=spec.get("constants") or {}, grid=grid,
                 derive=derive, columns=list(spec.get("columns") or [*grid, *derive]), cost=spec.get("cost"),
                 figure=spec.get("figure") or {})


def load_networks(network, common_set, path):
    """The sweep's networks: `network` is a topology file, or a list of {name, file, set}; file names are
    relative to the repository root. Each network's `set` (parameter: expression) merges over `common_set`."""
    if isinstance(network, str):
        return [Network(Path(network).stem, REPO / network, dict(common_set))]
    if not isinstance(network, list) or not network:
        raise SweepError(f"{path}: 'network' must be a topology file or a list of {{name, file, set}}")
    networks = []
    for entry in network:
        if not isinstance(entry, dict) or "file" not in entry:
            raise SweepError(f"{path}: each entry of 'network' needs a 'file' (and may have 'name' and 'set')")
        name = str(entry.get("name") or Path(entry["file"]).stem)
        networks.append(Network(name, REPO / entry["file"], {**common_set, **(entry.get("set") or {})}))
    return networks


# ---------------------------------------------------------------------------------------------------------
# Plans: the points of a sweep, its runs, and what they should cost.

@dataclass
class Point:
    """One point of a sweep's grid: its CSV columns, its network and --set pairs, its work in CPU seconds."""
    columns: dict
    network: Network
    sets: dict
    cost_s: float


@dataclass
class Plan:
    """A sweep ready to run: its points, the (scheduler, cpus) configurations of each, and the repeat."""
    sweep: Sweep
    n_cpus: int
    cpus: list
    points: list
    configs: list
    repeat: int

    def point_estimate_s(self, point):
        """Estimated seconds to run every configuration of `point` `repeat` times."""
        return self.repeat * sum(point.cost_s / max(1.0, cpus * PARALLEL_EFFICIENCY) + RUN_OVERHEAD_S
                                 for _, cpus in self.configs)

    def estimate_s(self):
        """Estimated seconds for the whole sweep."""
        return sum(self.point_estimate_s(p) for p in self.points)


def axis_values(name, spec, names):
    """The values of one grid axis: a list of numbers or expressions, or {from, to, step} (both ends
    included). Expressions may use the constants and N."""
    if isinstance(spec, list):
        return [v if name == "network" else evaluate(v, names) for v in spec]
    if isinstance(spec, dict) and set(spec) <= {"from", "to", "step"} and {"from", "to"} <= set(spec):
        start, stop = evaluate(spec["from"], names), evaluate(spec["to"], names)
        step = evaluate(spec.get("step", 1), names)
        if step <= 0:
            raise SweepError(f"grid axis '{name}': step must be positive")
        count = math.floor((stop - start) / step + 1e-9) + 1
        return [start + i * step for i in range(max(count, 0))]
    raise SweepError(f"grid axis '{name}': expected a list or {{from, to, step}}, got {spec!r}")


def make_plan(sweep, n_cpus, repeat):
    """Enumerates a sweep's points (the product of its grid axes, in file order) for N = n_cpus."""
    names = {"N": n_cpus}
    for name, expression in sweep.constants.items():
        names[name] = evaluate(expression, names)
    cpus = []
    for expression in sweep.cpus:
        value = int(evaluate(expression, names))
        if value < 1:
            raise SweepError(f"{sweep.path}: cpus must be at least 1, got {expression!r} = {value}")
        if value not in cpus:
            cpus.append(value)
    axes = {name: axis_values(name, spec, names) for name, spec in sweep.grid.items()}
    networks = {n.name: n for n in sweep.networks}
    points = []
    for combination in itertools.product(*axes.values()):
        env = {**names, **dict(zip(axes, combination))}
        for name, expression in sweep.derive.items():
            env[name] = evaluate(expression, env)
        network = networks[env["network"]] if "network" in axes else sweep.networks[0]
        missing = [c for c in sweep.columns if c not in env]
        if missing:
            raise SweepError(f"{sweep.path}: columns {missing} are neither constants, grid axes nor derived")
        points.append(Point(columns={c: env[c] for c in sweep.columns}, network=network,
                            sets={k: format_value(evaluate(v, env)) for k, v in network.set.items()},
                            cost_s=float(evaluate(sweep.cost, env)) if sweep.cost is not None else 0.0))
    configs = [(s, c) for s in sweep.schedulers for c in cpus]
    return Plan(sweep=sweep, n_cpus=n_cpus, cpus=cpus, points=points, configs=configs, repeat=repeat)


def describe_point(point):
    """The point's columns as `n=50 d=1000`."""
    return " ".join(f"{k}={format_value(v)}" for k, v in point.columns.items())


def format_duration(seconds):
    """Seconds as `45s`, `3m10s` or `1h02m`."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def print_plan(plans):
    """--dry-run: every point of every sweep, with its --set pairs and estimated time, and the totals."""
    for plan in plans:
        sweep = plan.sweep
        runs = len(plan.points) * len(plan.configs) * plan.repeat
        print(f"{sweep.name} (preset {sweep.preset}): {len(plan.points)} points x scheduler "
              f"{', '.join(sweep.schedulers)} x cpus {plan.cpus} x repeat {plan.repeat} = "
              f"{runs} runs, about {format_duration(plan.estimate_s())}")
        for point in plan.points:
            sets = " ".join(f"{k}={v}" for k, v in point.sets.items())
            print(f"  {describe_point(point):<40} {point.network.file.name} --set {sets}  "
                  f"work {point.cost_s:.3g} CPU s, about {format_duration(plan.point_estimate_s(point))}")
    total = sum(p.estimate_s() for p in plans)
    print(f"total: about {format_duration(total)} (estimated: the work of a run on c CPUs over a speedup of "
          f"{PARALLEL_EFFICIENCY} c, plus {RUN_OVERHEAD_S} s a run)")


# ---------------------------------------------------------------------------------------------------------
# Running.

def find_kpn_run(bin_dir, runner=None):
    """The runner: `runner` (--runner PATH) if given, else kpn-run in `bin_dir`; a SweepError if it is not
    an executable file."""
    path = Path(runner) if runner else Path(bin_dir) / "kpn-run"
    if not path.is_file() or not os.access(path, os.X_OK):
        hint = "" if runner else ": build kpn first, or pass --bin DIR"
        raise SweepError(f"{path} not found or not executable{hint}")
    return path


def measure_t0(kpn_run):
    """T0 (iterations of the work loop per CPU second) as `kpn-run --measure-t0` measures it."""
    proc = subprocess.run([str(kpn_run), "--measure-t0"], capture_output=True, text=True)
    try:
        t0 = float(proc.stdout.strip())
    except ValueError:
        t0 = 0.0
    if proc.returncode != 0 or not t0 > 0:
        raise SweepError(f"cannot measure T0: `{kpn_run} --measure-t0` exited {proc.returncode}, printed "
                         f"{proc.stdout.strip()!r}\n{proc.stderr}")
    return t0


@contextlib.contextmanager
def hog_running(cpu):
    """A busy process pinned to `cpu` while the block runs (seed 004's machine shared with another
    program), or nothing when `cpu` is None. The hog is killed and reaped however the block ends."""
    if cpu is None:
        yield None
        return
    hog = subprocess.Popen([sys.executable, "-c", HOG_PROGRAM, HOG_MARK, str(cpu)])
    try:
        time.sleep(0.05)  # let it pin itself and take its CPU before the run starts
        yield hog
    finally:
        hog.kill()
        hog.wait()


def run_once(kpn_run, point, scheduler, cpus, t0, stats_path, hog=None):
    """Runs kpn-run once and returns the measurements kept from its JSON report; a SweepError with the
    command line and its stderr if it fails."""
    command = [str(kpn_run), str(point.network.file), "--scheduler", scheduler, "--cpus", str(cpus),
               "--t0", f"{t0:.0f}", "--quiet", "--stats-json", str(stats_path)]
    if point.sets:
        command += ["--set", *(f"{k}={v}" for k, v in point.sets.items())]
    stats_path.unlink(missing_ok=True)
    with hog_running(hog):
        proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SweepError(f"kpn-run exited with status {proc.returncode}:\n  {shlex.join(command)}\n"
                         f"{proc.stderr.rstrip()}")
    try:
        stats = json.loads(stats_path.read_text())
    except (OSError, ValueError) as e:
        raise SweepError(f"no readable JSON report from:\n  {shlex.join(command)}\n{e}") from None
    missing = [k for k in REQUIRED_STATS if k not in stats]
    if stats.get("status") != "ok" or missing:
        raise SweepError(f"bad report (status {stats.get('status')!r}, missing {missing}) from:\n  "
                         f"{shlex.join(command)}")
    return {k: stats[k] for k in (*REQUIRED_STATS, *OPTIONAL_STATS) if k in stats}


def run_point(plan, point, kpn_run, t0, stats_path, log):
    """Runs every configuration of a point `repeat` times, interleaved: each repetition runs every
    configuration once, starting one further along each time, so that drift of the machine is shared.
    Returns {(scheduler, cpus): [measurements, ...]}; writes each run as a line of `log` (runs.jsonl)."""
    runs = {config: [] for config in plan.configs}
    for rep in range(plan.repeat):
        shift = rep % len(plan.configs)
        for scheduler, cpus in plan.configs[shift:] + plan.configs[:shift]:
            measured = run_once(kpn_run, point, scheduler, cpus, t0, stats_path, plan.sweep.hog)
            runs[(scheduler, cpus)].append(measured)
            record = {**point.columns, "scheduler": scheduler, "cpus": cpus, "rep": rep, **measured}
            log.write(json.dumps(record) + "\n")
            log.flush()
    return runs


def median_run(runs):
    """The median run by wall time (with an even count the lower middle one, so it is a real run) and
    the minimum and maximum wall times."""
    ordered = sorted(runs, key=lambda r: r["wall_s"])
    return ordered[(len(ordered) - 1) // 2], ordered[0]["wall_s"], ordered[-1]["wall_s"]


def point_rows(plan, point, runs, t0, max_spread=DEFAULT_MAX_SPREAD):
    """The CSV rows of one point: one per (scheduler, cpus), with the speedup over the same scheduler on
    one CPU (empty when the sweep has no 1-CPU runs) and the row's flags (row_flags)."""
    rows = []
    for scheduler in plan.sweep.schedulers:
        baseline = median_run(runs[(scheduler, 1)])[0]["wall_s"] if 1 in plan.cpus else None
        for cpus in plan.cpus:
            median, wall_min, wall_max = median_run(runs[(scheduler, cpus)])
            row = {**point.columns, "scheduler": scheduler, "cpus": cpus,
                   "wall_median_s": median["wall_s"], "wall_min_s": wall_min, "wall_max_s": wall_max,
                   "speedup": baseline / median["wall_s"] if baseline else None,
                   "steal_attempts_per_s": median["steal_attempts_per_s"],
                   "messages": median["messages"], "context_switches": median["context_switches"],
                   "cross_worker_share": median.get("cross_worker_share"), "t0": t0,
                   "repeat": plan.repeat}
            row["flags"] = ";".join(row_flags(row, max_spread)) or None
            rows.append(row)
    return rows


def format_percent(fraction):
    """0.25 as `25%`, 0.125 as `12.5%`."""
    return f"{fraction * 100:.3g}%"


def row_flags(row, max_spread):
    """What is wrong with a CSV row, as short tags for its `flags` column:
    `speedup>cpus` when its speedup exceeds its CPU count by more than SPEEDUP_TOLERANCE (impossible for
    kpn: the measurement is wrong), `spread>X%` when its slowest run took more than 1 + max_spread times
    its fastest (X = max_spread), and `wall<=0` for a run that reports no time at all."""
    flags = []
    if row["wall_min_s"] <= 0:
        return ["wall<=0"]
    if row["speedup"] is not None and row["speedup"] > row["cpus"] * (1 + SPEEDUP_TOLERANCE):
        flags.append("speedup>cpus")
    if row["wall_max_s"] / row["wall_min_s"] - 1 > max_spread:
        flags.append(f"spread>{format_percent(max_spread)}")
    return flags


def flag_message(sweep_name, row, columns):
    """The warning printed for a flagged row: the sweep, the point, the configuration and the numbers."""
    point = " ".join(f"{c}={format_value(row[c])}" for c in columns)
    speedup = "" if row["speedup"] is None else f", speedup {row['speedup']:.2f}"
    spread = (f", wall {row['wall_min_s']:.4g} to {row['wall_max_s']:.4g} s"
              f" (spread {format_percent(row['wall_max_s'] / row['wall_min_s'] - 1)})"
              if row["wall_min_s"] > 0 else "")
    reasons = []
    for flag in row["flags"].split(";"):
        if flag == "speedup>cpus":
            reasons.append(f"speedup {row['speedup']:.2f} on {row['cpus']} CPUs is impossible (more than "
                           f"{row['cpus']} x {1 + SPEEDUP_TOLERANCE:g}): the 1-CPU runs were slowed down or "
                           f"the machine is loaded")
        elif flag.startswith("spread>"):
            reasons.append(f"max/min wall time spread above {flag[len('spread>'):]}: the runs disagree")
        else:
            reasons.append(flag)
    return (f"experiment: WARNING: {sweep_name}: {point} {row['scheduler']} on {row['cpus']} "
            f"CPU{'' if row['cpus'] == 1 else 's'} "
            f"[{row['flags']}]{speedup}{spread}: {'; '.join(reasons)}")


def write_csv(path, columns, rows):
    """Writes rows (dicts) as CSV with a header; None is written as an empty cell."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow("" if row.get(c) is None else format_value(row[c]) for c in columns)


def read_csv(path):
    """The rows of a results.csv, with numbers as numbers and empty cells as None."""
    with open(path, newline="") as f:
        return [{k: parse_number(v) for k, v in row.items()} for row in csv.DictReader(f)]


def cpu_model():
    """The CPU model: /proc/cpuinfo's first `model name`, else lscpu's `Model name:` (ARM), else ''."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and ":" in line:
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def load_average():
    """The 1, 5 and 15-minute load averages ({"1m", "5m", "15m"}) from /proc/loadavg (or the file that
    KPN_EXPERIMENT_LOADAVG names), or None where it cannot be read."""
    try:
        fields = Path(LOADAVG_PATH).read_text().split()
        return {"1m": float(fields[0]), "5m": float(fields[1]), "15m": float(fields[2])}
    except (OSError, ValueError, IndexError):
        return None


def project_version():
    """The version in CMakeLists.txt's `project(kpn VERSION x.y.z ...)`, or None."""
    try:
        match = re.search(r"project\(\s*kpn\b[^)]*?\bVERSION\s+([0-9][0-9A-Za-z.+-]*)",
                          (REPO / "CMakeLists.txt").read_text())
    except OSError:
        return None
    return match.group(1) if match else None


def kpn_info(kpn_run):
    """What kpn the runs use: its version (`kpn-run --version` when the runner has it, else CMakeLists.txt's
    project version, and which of the two), the build type (CMAKE_BUILD_TYPE of the CMakeCache.txt beside
    the runner's bin/ directory, None without one) and the commit of this checkout."""
    info = {"kpn_version": None, "kpn_version_source": None, "kpn_version_output": None, "build_type": None}
    try:
        proc = subprocess.run([str(kpn_run), "--version"], capture_output=True, text=True, timeout=30)
        match = re.search(r"\b(\d+\.\d+\.\d+[0-9A-Za-z.+-]*)", proc.stdout)
        if proc.returncode == 0 and match:
            info.update(kpn_version=match.group(1), kpn_version_source="kpn-run --version",
                        kpn_version_output=proc.stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        pass
    if info["kpn_version"] is None:
        info.update(kpn_version=project_version(), kpn_version_source="CMakeLists.txt")
    cache = Path(kpn_run).resolve().parent.parent / "CMakeCache.txt"
    try:
        match = re.search(r"^CMAKE_BUILD_TYPE:[A-Z]*=(.*)$", cache.read_text(), re.MULTILINE)
        if match:
            info["build_type"] = match.group(1).strip()
    except OSError:
        pass
    git = ["git", "-C", str(REPO)]
    info["kpn_commit"] = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    info["kpn_tree_modified"] = subprocess.run([*git, "diff", "--quiet", "HEAD", "--"],
                                               capture_output=True).returncode != 0
    return info


def machine_info(kpn_run):
    """The machine and the code the results come from: CPU model, CPU counts, kernel, host, date, and
    kpn's version, build type and commit (kpn_info)."""
    return {"cpu_model": cpu_model(), "cpus_online": os.cpu_count(),
            "cpus_usable": len(os.sched_getaffinity(0)), "kernel": platform.release(),
            "hostname": platform.node(),
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"), **kpn_info(kpn_run)}


def warn(message):
    """A warning on stderr, flushed at once so that it shows between the progress lines."""
    print(message, file=sys.stderr, flush=True)


def check_idle(sweep_name, load, max_load, first):
    """Warns when the 1-minute load average before a sweep exceeds `max_load` per online CPU: other programs
    then run beside the sweep and its times mean little. Returns the warning, or None. Before a sweep that
    follows another in the same command, the average still counts that sweep's own runs (it decays over
    minutes), so only the first sweep is checked."""
    if load is None or not first:
        return None
    cpus = os.cpu_count() or 1
    if load["1m"] <= max_load * cpus:
        return None
    message = (f"experiment: WARNING: {sweep_name}: the machine is not idle: load average {load['1m']:.2f} "
               f"{load['5m']:.2f} {load['15m']:.2f} on {cpus} CPUs ({load['1m'] / cpus:.2f} per CPU, more "
               f"than --max-load {max_load:g}); its timings include other programs' work")
    warn(message)
    return message


class Progress:
    """Counts the points done over all sweeps and prints, after each, the time elapsed and the time left,
    extrapolated from the time taken per estimated second so far."""

    def __init__(self, plans):
        self.total_points = sum(len(p.points) for p in plans)
        self.total_estimate = sum(p.estimate_s() for p in plans)
        self.points_done = 0
        self.estimate_done = 0.0
        self.start = time.monotonic()

    def point_done(self, plan, point):
        """Records a finished point and prints the progress line on stderr."""
        self.points_done += 1
        self.estimate_done += plan.point_estimate_s(point)
        elapsed = time.monotonic() - self.start
        left = elapsed / self.estimate_done * (self.total_estimate - self.estimate_done)
        print(f"[{self.points_done}/{self.total_points} points] elapsed {format_duration(elapsed)}, "
              f"about {format_duration(left)} left  ({plan.sweep.name}: {describe_point(point)})",
              file=sys.stderr, flush=True)


def run_sweep(plan, args, kpn_run, progress):
    """Runs one sweep and writes results.csv, runs.jsonl, meta.json and the figure; returns the rows."""
    sweep = plan.sweep
    out_dir = Path(args.out) / sweep.name
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = args.t0 or measure_t0(kpn_run)
    print(f"{sweep.name} (preset {sweep.preset}, {plan.n_cpus} CPUs, repeat {plan.repeat}): "
          f"T0 = {t0:.6g} iterations per CPU second{' (given)' if args.t0 else ''}", flush=True)
    started = time.monotonic()
    load_before = load_average()
    warnings = [w for w in [check_idle(sweep.name, load_before, args.max_load, progress.points_done == 0)] if w]
    meta = {"sweep": sweep.name, "sweep_file": str(sweep.path.resolve()), "title": sweep.title,
            "preset": sweep.preset, "t0": t0, "cpus": plan.n_cpus, "cpu_counts": plan.cpus,
            "schedulers": sweep.schedulers, "repeat": plan.repeat, "hog_cpu": sweep.hog, "points": len(plan.points),
            "kpn_run": str(kpn_run), "figure": sweep.figure, "machine": machine_info(kpn_run),
            "load_average_before": load_before, "load_average_after": None,
            "checks": {"speedup_tolerance": SPEEDUP_TOLERANCE, "max_spread": args.max_spread,
                       "max_load_per_cpu": args.max_load},
            "flagged_rows": 0, "warnings": warnings, "status": "running"}
    write_json(out_dir / "meta.json", meta)
    columns = [*sweep.columns, *RESULT_COLUMNS]
    rows = []
    with tempfile.TemporaryDirectory(prefix="kpn-experiment-") as tmp, open(out_dir / "runs.jsonl", "w") as log:
        for point in plan.points:
            runs = run_point(plan, point, kpn_run, t0, Path(tmp) / "stats.json", log)
            new_rows = point_rows(plan, point, runs, t0, args.max_spread)
            rows += new_rows
            write_csv(out_dir / "results.csv", columns, rows)  # after every point: a stopped sweep keeps its rows
            for row in new_rows:
                if row["flags"]:
                    warnings.append(flag_message(sweep.name, row, sweep.columns))
                    warn(warnings[-1])
            meta.update(flagged_rows=sum(1 for r in rows if r["flags"]), warnings=warnings)
            progress.point_done(plan, point)
    meta.update(load_average_after=load_average())
    draw_figure(out_dir / "results.csv", sweep.figure, plan.n_cpus, sweep.title, out_dir / f"{sweep.name}.png")
    meta.update(status="complete", duration_s=round(time.monotonic() - started, 1))
    write_json(out_dir / "meta.json", meta)
    if meta["flagged_rows"]:
        warn(f"experiment: WARNING: {sweep.name}: {meta['flagged_rows']} of {len(rows)} rows flagged "
             f"(the `flags` column of {out_dir / 'results.csv'}); do not trust them without a rerun")
    return rows


def write_json(path, value):
    """Writes `value` as indented JSON."""
    Path(path).write_text(json.dumps(value, indent=2) + "\n")


def print_summary(plan, rows):
    """The sweep's table on stdout: for every row on more than one CPU (or every row if there are none),
    the point's columns, scheduler, CPUs, speedup and steal rate."""
    shown = [r for r in rows if r["cpus"] != 1] or rows
    flags = any(r.get("flags") for r in shown)
    header = [*plan.sweep.columns, "scheduler", "cpus", "speedup", "steals/s", *(["flags"] if flags else [])]
    table = [[format_value(r[c]) for c in plan.sweep.columns]
             + [r["scheduler"], str(r["cpus"]), "" if r["speedup"] is None else f"{r['speedup']:.2f}",
                f"{r['steal_attempts_per_s']:.3g}", *([r.get("flags") or ""] if flags else [])]
             for r in shown]
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(header)]
    print(f"\n{plan.sweep.name}: {plan.sweep.title}")
    for line in [header, *table]:
        print("  ".join(cell.rjust(w) for cell, w in zip(line, widths)))
    print(flush=True)


# ---------------------------------------------------------------------------------------------------------
# Figures.

def panel_spec(entry):
    """A panel of a figure: `speedup`, or {metric, log (a base), label}."""
    if isinstance(entry, str):
        entry = {"metric": entry}
    if "metric" not in entry:
        raise SweepError(f"figure: a y entry needs a metric: {entry!r}")
    return {"metric": entry["metric"], "log": entry.get("log"),
            "label": entry.get("label") or METRIC_LABELS.get(entry["metric"], entry["metric"])}


def error_range(row, metric):
    """The (low, high) range a min-max error bar shows for `metric` in `row`, or None: the minimum and
    maximum wall time for `wall_median_s`; for `speedup`, the 1-CPU median over this row's maximum and
    minimum wall time (the spread of this configuration's runs; the 1-CPU runs' own spread is not in it)."""
    value, low, high = row.get(metric), row.get("wall_min_s"), row.get("wall_max_s")
    if value is None or low is None or high is None or low <= 0:
        return None
    if metric == "wall_median_s":
        return low, high
    if metric == "speedup":
        baseline = value * row["wall_median_s"]  # the 1-CPU median wall time
        return baseline / high, baseline / low
    return None


def draw_figure(csv_path, figure, n_cpus, title, png_path):
    """Draws results.csv as the sweep's figure: one panel per y metric, over the rows on `figure.cpus`
    CPUs (default N), as lines (`kind: lines`) or grouped bars (`kind: bars`), with min-max error bars on
    running times and speedups and flagged rows ringed in red; writes it as PNG and, beside it, as SVG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    kind = figure.get("kind", "lines")
    if kind not in ("lines", "bars") or "x" not in figure:
        raise SweepError(f"figure: kind must be lines or bars, and x is required: {figure!r}")
    cpus = int(evaluate(figure.get("cpus", "N"), {"N": n_cpus}))
    rows = [r for r in read_csv(csv_path) if r["cpus"] == cpus]
    panels = [panel_spec(y) for y in figure.get("y", ["speedup"])]
    fig, axes = plt.subplots(1, len(panels), figsize=(max(7.0, 5.4 * len(panels)), 4.3), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        (draw_lines if kind == "lines" else draw_bars)(ax, rows, figure, panel, n_cpus)
        ax.set_ylabel(panel["label"])
        if panel["metric"] == "speedup" and cpus > 1:  # the ceiling: a speedup above it is a wrong measurement
            ax.axhline(cpus, color="grey", linewidth=0.8, linestyle="--")
        if panel["log"]:
            ax.set_yscale("log", base=panel["log"])
        ax.grid(True, alpha=0.3)
    if any(r.get("flags") for r in rows):
        axes[0][0].plot([], [], linestyle="none", marker="o", markersize=9, markerfacecolor="none",
                        markeredgecolor="red", label="flagged (see results.csv)")
    axes[0][0].legend(fontsize="small")
    fig.suptitle(f"{title} ({cpus} CPUs)" if title else f"{cpus} CPUs")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    fig.savefig(Path(png_path).with_suffix(".svg"))
    plt.close(fig)


def group_rows(rows, keys):
    """Rows grouped by the values of `keys`, groups in order of first appearance."""
    groups = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    return groups


def series_label(keys, values):
    """`ws-last n=50` for keys [scheduler, n]."""
    return " ".join(str(v) if k == "scheduler" else f"{k}={format_value(v)}" for k, v in zip(keys, values))


def series_styles(keys, groups):
    """Matplotlib styles per series: the scheduler picks the line style and marker, the other keys the
    colour (or the scheduler too, when it is the only key)."""
    styles = {}
    schedulers = list(dict.fromkeys(g[keys.index("scheduler")] for g in groups)) if "scheduler" in keys else []
    others = list(dict.fromkeys(tuple(v for k, v in zip(keys, g) if k != "scheduler") for g in groups))
    for g in groups:
        s = schedulers.index(g[keys.index("scheduler")]) if schedulers else 0
        o = others.index(tuple(v for k, v in zip(keys, g) if k != "scheduler"))
        colour = f"C{(o if len(others) > 1 else s) % 10}"
        styles[g] = {"color": colour, "linestyle": LINE_STYLES[s % len(LINE_STYLES)],
                     "marker": MARKERS[s % len(MARKERS)], "markersize": 4}
    return styles


def draw_lines(ax, rows, figure, panel, n_cpus):
    """One line per series (`figure.series`, default [scheduler]) of `panel.metric` against `figure.x`,
    optionally with a log x axis (`logx`: true or a base), ticks at the x values (`xticks: data`) and
    vertical lines at multiples of `vlines_every`."""
    x, keys = figure["x"], list(figure.get("series", ["scheduler"]))
    groups = group_rows(rows, keys)
    styles = series_styles(keys, list(groups))
    metric = panel["metric"]
    for values, members in groups.items():
        shown = sorted((r for r in members if r[metric] is not None), key=lambda r: r[x])
        if not shown:
            continue
        xs, ys = [r[x] for r in shown], [r[metric] for r in shown]
        ranges = [error_range(r, metric) for r in shown]
        error = None
        if all(ranges):
            # max(0, ...): a speedup's range, computed back from the CSV, may miss it by a rounding error.
            error = [[max(0.0, y - lo) for y, (lo, _) in zip(ys, ranges)],
                     [max(0.0, hi - y) for y, (_, hi) in zip(ys, ranges)]]
        ax.errorbar(xs, ys, yerr=error, capsize=2, elinewidth=0.8, label=series_label(keys, values),
                    **styles[values])
        flagged = [(r[x], r[metric]) for r in shown if r.get("flags")]
        if flagged:
            ax.plot(*zip(*flagged), linestyle="none", marker="o", markersize=9, markerfacecolor="none",
                    markeredgecolor="red")
    ax.set_xlabel(figure.get("xlabel", x))
    if figure.get("logx"):
        ax.set_xscale("log", base=10 if figure["logx"] is True else figure["logx"])
    if figure.get("xticks") == "data" and rows:
        xs = sorted(set(r[x] for r in rows))
        ax.set_xticks(xs, [format_value(v) for v in xs])
        ax.minorticks_off()
    if figure.get("vlines_every") and rows:
        every = evaluate(figure["vlines_every"], {"N": n_cpus})
        xs = [r[x] for r in rows]
        for k in range(math.ceil(min(xs) / every), math.floor(max(xs) / every) + 1):
            ax.axvline(k * every, color="grey", linewidth=0.8, linestyle=":")


def draw_bars(ax, rows, figure, panel, n_cpus):
    """Grouped bars: one group per value of `figure.x` (a column, e.g. network), one bar per series
    (`figure.series`, default [scheduler]); running times get min-max error bars."""
    x, keys, metric = figure["x"], list(figure.get("series", ["scheduler"])), panel["metric"]
    categories = list(dict.fromkeys(r[x] for r in rows))
    groups = group_rows(rows, keys)
    width = 0.8 / max(len(groups), 1)
    for i, (values, members) in enumerate(groups.items()):
        by_category = {r[x]: r for r in members}

        def cell(category, column):
            """The series' value in a category, 0 where it has none."""
            return (by_category[category][column] or 0) if category in by_category else 0

        heights = [cell(c, metric) for c in categories]
        error = None
        if metric in ("wall_median_s", "speedup"):
            ranges = [error_range(by_category[c], metric) if c in by_category else None for c in categories]
            error = [[max(0.0, h - r[0]) if r else 0 for h, r in zip(heights, ranges)],
                     [max(0.0, r[1] - h) if r else 0 for h, r in zip(heights, ranges)]]
        positions = [j + (i - (len(groups) - 1) / 2) * width for j in range(len(categories))]
        ax.bar(positions, heights, width, yerr=error, capsize=2, color=f"C{i % 10}",
               label=series_label(keys, values))
        flagged = [(pos, h) for pos, h, c in zip(positions, heights, categories)
                   if c in by_category and by_category[c].get("flags")]
        if flagged:
            ax.plot(*zip(*flagged), linestyle="none", marker="o", markersize=9, markerfacecolor="none",
                    markeredgecolor="red")
    # Multi-word categories ("pipeline 0us") go on two lines so that neighbours do not overlap.
    ax.set_xticks(range(len(categories)), [format_value(c).replace(" ", "\n", 1) for c in categories])
    ax.set_xlabel(figure.get("xlabel", x))


def plot_only(directory, sweep_files):
    """--plot-only: re-draws a results directory's figure from its results.csv and meta.json, with the
    figure description of the sweep file it came from (or of the one given, or the one meta.json kept)."""
    directory = Path(directory)
    meta_path, csv_path = directory / "meta.json", directory / "results.csv"
    if not meta_path.exists() or not csv_path.exists():
        raise SweepError(f"{directory}: needs results.csv and meta.json (written by a run of this tool)")
    meta = json.loads(meta_path.read_text())
    figure, title = meta["figure"], meta.get("title", "")
    source = Path(sweep_files[0]) if sweep_files else Path(meta.get("sweep_file", ""))
    if source.is_file():
        sweep = load_sweep(source, meta.get("preset", "full"))
        figure, title = sweep.figure, sweep.title
    png = directory / f"{meta['sweep']}.png"
    draw_figure(csv_path, figure, meta["cpus"], title, png)
    print(f"wrote {png} and {png.with_suffix('.svg')}")


# ---------------------------------------------------------------------------------------------------------
# Command line.

def parse_args(argv):
    """The command line (see the module's docstring and docs/experiments.md)."""
    p = argparse.ArgumentParser(description="Runs kpn sweeps (configs/experiments/*.yaml) and draws them.")
    p.add_argument("sweeps", nargs="*", metavar="SWEEP.yaml", help="sweep files, run in this order")
    p.add_argument("--preset", choices=PRESETS, default="full", help="parameter set (default: full)")
    p.add_argument("--quick", dest="preset", action="store_const", const="quick", help="= --preset quick")
    p.add_argument("--cpus", type=int, default=len(os.sched_getaffinity(0)),
                   help="N, the CPU count of the parallel runs (default: the CPUs this process may use)")
    p.add_argument("--repeat", type=int, default=9, help="runs per configuration and point (default: 9)")
    p.add_argument("--out", default=str(REPO / "results" / "experiments"),
                   help="results go to OUT/<sweep name>/ (default: results/experiments)")
    p.add_argument("--schedulers", help="comma-separated schedulers instead of each file's")
    p.add_argument("--t0", type=float, help="T0 to pass to every run instead of measuring it")
    p.add_argument("--dry-run", action="store_true", help="print the points and estimated time, run nothing")
    p.add_argument("--bin", default=str(REPO / "build" / "bin"), help="where kpn-run is (default: build/bin)")
    p.add_argument("--runner", metavar="PATH",
                   help="run this program instead of BIN/kpn-run (it takes kpn-run's options; tests use a fake)")
    p.add_argument("--max-spread", type=float, default=DEFAULT_MAX_SPREAD * 100, metavar="PERCENT",
                   help="flag a configuration whose slowest run took more than 1 + PERCENT/100 times its "
                        f"fastest (default: {DEFAULT_MAX_SPREAD * 100:g})")
    p.add_argument("--max-load", type=float, default=DEFAULT_MAX_LOAD, metavar="PER_CPU",
                   help="warn when the 1-minute load average before the first sweep exceeds this per CPU "
                        f"(default: {DEFAULT_MAX_LOAD:g})")
    p.add_argument("--plot-only", metavar="DIR", help="re-draw DIR's figure from its results.csv and exit")
    args = p.parse_args(argv)
    if not args.plot_only and not args.sweeps:
        p.error("give at least one sweep file (or --plot-only DIR)")
    if args.cpus < 1 or args.repeat < 1 or (args.t0 is not None and args.t0 <= 0):
        p.error("--cpus and --repeat must be at least 1, --t0 positive")
    if args.max_spread < 0 or args.max_load < 0:
        p.error("--max-spread and --max-load must not be negative")
    args.max_spread /= 100  # a fraction from here on
    return args


def main(argv=None):
    """Runs the command line; returns the exit status (0 ok, 1 a sweep or run failed, 130 interrupted)."""
    args = parse_args(argv)
    try:
        if args.plot_only:
            plot_only(args.plot_only, args.sweeps)
            return 0
        sweeps = [load_sweep(path, args.preset) for path in args.sweeps]
        for sweep in sweeps:
            if args.schedulers:
                sweep.schedulers = [s.strip() for s in args.schedulers.split(",") if s.strip()]
        plans = [make_plan(sweep, args.cpus, args.repeat) for sweep in sweeps]
        if args.dry_run:
            print_plan(plans)
            return 0
        kpn_run = find_kpn_run(args.bin, args.runner)
        progress = Progress(plans)
        for plan in plans:
            print_summary(plan, run_sweep(plan, args, kpn_run, progress))
        print(f"done in {format_duration(time.monotonic() - progress.start)}; results in {args.out}")
        return 0
    except SweepError as e:
        print(f"experiment: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("experiment: interrupted; finished points are in results.csv", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
