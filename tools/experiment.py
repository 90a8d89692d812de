#!/usr/bin/python3
"""Runs parameter sweeps of kpn networks through the runner and draws their figures.

A sweep file (YAML; see docs/experiments.md and configs/experiments/) names a network, the schedulers, the
CPU counts and a grid of parameter values. For every point of the grid, every scheduler and every CPU count,
this driver runs `kpn-run` as a separate process `--repeat` times, keeps the median run by wall time (with
that run's own steal rate and counters, as seed 000 does), and writes results.csv, runs.jsonl, meta.json
and a PNG figure to OUT/<sweep name>/.

    /usr/bin/python3 tools/experiment.py configs/experiments/2-workers.yaml [--quick] [--dry-run]
    /usr/bin/python3 tools/experiment.py --plot-only results/experiments/2-workers
"""

import argparse
import ast
import csv
import datetime
import itertools
import json
import math
import operator
import os
import platform
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
                  "steal_attempts_per_s", "messages", "context_switches", "cross_worker_share", "t0", "repeat")
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


MERGED_KEYS = ("constants", "grid", "derive", "set")
SWEEP_KEYS = {"name", "title", "network", "schedulers", "cpus", "columns", "cost", "figure", "presets",
              *MERGED_KEYS}


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
    return Sweep(name=str(spec.get("name") or path.stem), path=path, preset=preset,
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

def find_kpn_run(bin_dir):
    """The runner in `bin_dir`; a SweepError if it is not built."""
    path = Path(bin_dir) / "kpn-run"
    if not os.access(path, os.X_OK):
        raise SweepError(f"{path} not found or not executable: build kpn first, or pass --bin DIR")
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


def run_once(kpn_run, point, scheduler, cpus, t0, stats_path):
    """Runs kpn-run once and returns the measurements kept from its JSON report; a SweepError with the
    command line and its stderr if it fails."""
    command = [str(kpn_run), str(point.network.file), "--scheduler", scheduler, "--cpus", str(cpus),
               "--t0", f"{t0:.0f}", "--quiet", "--stats-json", str(stats_path)]
    if point.sets:
        command += ["--set", *(f"{k}={v}" for k, v in point.sets.items())]
    stats_path.unlink(missing_ok=True)
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
            measured = run_once(kpn_run, point, scheduler, cpus, t0, stats_path)
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


def point_rows(plan, point, runs, t0):
    """The CSV rows of one point: one per (scheduler, cpus), with the speedup over the same scheduler on
    one CPU (empty when the sweep has no 1-CPU runs)."""
    rows = []
    for scheduler in plan.sweep.schedulers:
        baseline = median_run(runs[(scheduler, 1)])[0]["wall_s"] if 1 in plan.cpus else None
        for cpus in plan.cpus:
            median, wall_min, wall_max = median_run(runs[(scheduler, cpus)])
            rows.append({**point.columns, "scheduler": scheduler, "cpus": cpus,
                         "wall_median_s": median["wall_s"], "wall_min_s": wall_min, "wall_max_s": wall_max,
                         "speedup": baseline / median["wall_s"] if baseline else None,
                         "steal_attempts_per_s": median["steal_attempts_per_s"],
                         "messages": median["messages"], "context_switches": median["context_switches"],
                         "cross_worker_share": median.get("cross_worker_share"), "t0": t0,
                         "repeat": plan.repeat})
    return rows


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


def machine_info():
    """The machine and the code the results come from: CPU model, kernel, date, kpn commit."""
    model = ""
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    git = ["git", "-C", str(REPO)]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "diff", "--quiet", "HEAD", "--"], capture_output=True).returncode != 0
    return {"cpu_model": model, "kernel": platform.release(), "hostname": platform.node(),
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "kpn_commit": commit, "kpn_tree_modified": dirty}


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
    meta = {"sweep": sweep.name, "sweep_file": str(sweep.path.resolve()), "title": sweep.title,
            "preset": sweep.preset, "t0": t0, "cpus": plan.n_cpus, "cpu_counts": plan.cpus,
            "schedulers": sweep.schedulers, "repeat": plan.repeat, "points": len(plan.points),
            "kpn_run": str(kpn_run), "figure": sweep.figure, "machine": machine_info(), "status": "running"}
    write_json(out_dir / "meta.json", meta)
    columns = [*sweep.columns, *RESULT_COLUMNS]
    rows = []
    with tempfile.TemporaryDirectory(prefix="kpn-experiment-") as tmp, open(out_dir / "runs.jsonl", "w") as log:
        for point in plan.points:
            runs = run_point(plan, point, kpn_run, t0, Path(tmp) / "stats.json", log)
            rows += point_rows(plan, point, runs, t0)
            write_csv(out_dir / "results.csv", columns, rows)  # after every point: a stopped sweep keeps its rows
            progress.point_done(plan, point)
    draw_figure(out_dir / "results.csv", sweep.figure, plan.n_cpus, sweep.title, out_dir / f"{sweep.name}.png")
    meta.update(status="complete", duration_s=round(time.monotonic() - started, 1))
    write_json(out_dir / "meta.json", meta)
    return rows


def write_json(path, value):
    """Writes `value` as indented JSON."""
    Path(path).write_text(json.dumps(value, indent=2) + "\n")


def print_summary(plan, rows):
    """The sweep's table on stdout: for every row on more than one CPU (or every row if there are none),
    the point's columns, scheduler, CPUs, speedup and steal rate."""
    shown = [r for r in rows if r["cpus"] != 1] or rows
    header = [*plan.sweep.columns, "scheduler", "cpus", "speedup", "steals/s"]
    table = [[format_value(r[c]) for c in plan.sweep.columns]
             + [r["scheduler"], str(r["cpus"]), "" if r["speedup"] is None else f"{r['speedup']:.2f}",
                f"{r['steal_attempts_per_s']:.3g}"] for r in shown]
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


def draw_figure(csv_path, figure, n_cpus, title, png_path):
    """Draws results.csv as the sweep's figure: one panel per y metric, over the rows on `figure.cpus`
    CPUs (default N), as lines (`kind: lines`) or grouped bars (`kind: bars`)."""
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
        if panel["log"]:
            ax.set_yscale("log", base=panel["log"])
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize="small")
    fig.suptitle(f"{title} ({cpus} CPUs)" if title else f"{cpus} CPUs")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
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
    for values, members in groups.items():
        points = sorted((r[x], r[panel["metric"]]) for r in members if r[panel["metric"]] is not None)
        if points:
            ax.plot(*zip(*points), label=series_label(keys, values), **styles[values])
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
        if metric == "wall_median_s":
            error = [[h - cell(c, "wall_min_s") for h, c in zip(heights, categories)],
                     [cell(c, "wall_max_s") - h for h, c in zip(heights, categories)]]
        positions = [j + (i - (len(groups) - 1) / 2) * width for j in range(len(categories))]
        ax.bar(positions, heights, width, yerr=error, capsize=2, color=f"C{i % 10}",
               label=series_label(keys, values))
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
    print(f"wrote {png}")


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
    p.add_argument("--plot-only", metavar="DIR", help="re-draw DIR's figure from its results.csv and exit")
    args = p.parse_args(argv)
    if not args.plot_only and not args.sweeps:
        p.error("give at least one sweep file (or --plot-only DIR)")
    if args.cpus < 1 or args.repeat < 1 or (args.t0 is not None and args.t0 <= 0):
        p.error("--cpus and --repeat must be at least 1, --t0 positive")
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
        kpn_run = find_kpn_run(args.bin)
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
