"""Device A/B, session 15, second call: handoff with naps (6abb4d8) against handoff whose dry workers read the
queues' summary first (sum), and ws-last, on scatter-gather (2, 8, 16 CPUs) and the capacity-64 pipeline."""
import json, os, resource, subprocess, tempfile
BIN = "build/bin/kpn-run"
OUT = os.environ.get("OUT", "/tmp")
REPS = int(os.environ.get("REPS", "5"))
DEV = os.path.abspath(".devlib")
VARIANTS = [("nap", "handoff", {}), ("sum", "handoff", {}), ("ws-last", "ws-last", {})]
raw = open(os.path.join(OUT, "s15b_runs.jsonl"), "w")


def run(variant, cfg, cpus, sets):
    name, sched, envx = variant
    if os.environ.get("DRY"):
        cpus = min(cpus, 2)
    lib = os.path.join(DEV, name if name in ("nap", "sum") else "sum")
    env = dict(os.environ, LD_LIBRARY_PATH=lib + ":" + DEV, **envx)
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([BIN, cfg, "--cpus", str(cpus), "--scheduler", sched, "--quiet", "--t0", T0, "--stats-json", f.name,
                        *sum((["--set", s] for s in sets), [])], check=True, stdout=subprocess.DEVNULL, env=env, timeout=60)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        d = json.load(open(f.name))
    s = d.get("scheduler_stats", {})
    rec = {"variant": name, "cfg": cfg, "cpus": cpus, "sets": sets, "wall": d["wall_s"], "att_s": d["steal_attempts_per_s"],
           "cpu": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), "switches": d["context_switches"],
           "futex_wakes": s.get("futex_wakes", 0), "stolen": s.get("stolen_processes", 0), "wakeups": s.get("wakeups", 0), "cross": d["cross_worker_share"]}
    raw.write(json.dumps(rec) + "\n"); raw.flush()
    return rec


T0 = subprocess.run([BIN, "--measure-t0"], capture_output=True, text=True,
                    env=dict(os.environ, LD_LIBRARY_PATH=DEV + "/new:" + DEV)).stdout.split()[-1]
print("t0", T0, flush=True)
SG = "configs/scatter-gather.yaml"
CASES = [(SG, 2, ["workers=50", "work_us=10", "rounds=2000"], 1.0), (SG, 2, ["workers=250", "work_us=10", "rounds=400"], 1.0),
         (SG, 2, ["workers=50", "work_us=1", "rounds=10000"], 0.5),
         (SG, 16, ["workers=50", "work_us=10", "rounds=2000"], 1.0), (SG, 16, ["workers=250", "work_us=10", "rounds=400"], 1.0),
         (SG, 16, ["workers=50", "work_us=1", "rounds=10000"], 0.5), (SG, 16, ["workers=50", "work_us=100", "rounds=200"], 1.0),
         (SG, 8, ["workers=50", "work_us=10", "rounds=2000"], 1.0),
         ("configs/pipeline.yaml", 16, ["count=1000000", "capacity=64"], None), ("configs/pipeline.yaml", 2, ["count=1000000", "capacity=64"], None)]
t1 = {}
for cfg, cpus, sets, work in CASES:
    if work is not None:
        t1[(cfg, tuple(sets))] = run(("ws-last", "ws-last", {}), cfg, 1, sets)["wall"]
print("T1", {k[1]: v for k, v in t1.items()}, flush=True)
for cfg, cpus, sets, work in CASES:
    res = {v[0]: [] for v in VARIANTS}
    for rep in range(REPS):
        for k in range(len(VARIANTS)):
            v = VARIANTS[(rep + k) % len(VARIANTS)]
            res[v[0]].append(run(v, cfg, cpus, sets))
    for v in VARIANTS:
        rs = sorted(res[v[0]], key=lambda r: r["wall"]); med = rs[len(rs) // 2]
        base = t1.get((cfg, tuple(sets)))
        fig = f"speedup {base / med['wall']:6.2f} [{base / rs[-1]['wall']:5.2f}-{base / rs[0]['wall']:5.2f}]" if base else \
            f"Mmsg/s {int(sets[0].split('=')[1]) / med['wall'] / 1e6:6.2f} [{int(sets[0].split('=')[1]) / rs[-1]['wall'] / 1e6:5.2f}-{int(sets[0].split('=')[1]) / rs[0]['wall'] / 1e6:5.2f}]"
        print(f"{os.path.basename(cfg):20} {cpus:2} {' '.join(sets):40} {v[0]:12} {fig} att/s {med['att_s']:9.3g} "
              f"sw {med['switches']:8} stolen {med.get('stolen', 0):7.0f} futex {med['futex_wakes']:6.0f} cpu/wall {med['cpu'] / med['wall']:5.2f}", flush=True)
print("done", flush=True)
