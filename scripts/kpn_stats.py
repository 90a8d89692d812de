"""One kpn-run, its --stats-json read back: what the benchmark drivers in scripts/ share."""
import json
import subprocess
import tempfile


def run_stats(kpn_run, config, cpus, sets=(), scheduler=None, chrt=True, extra=(), env=None):
    """Runs `kpn_run config --cpus N --set S ... [--scheduler P] extra...` on CPUs 0..N-1 (under
    `chrt -f 10` if `chrt`, which needs root) and returns its statistics as a dict."""
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        cmd = (["chrt", "-f", "10"] if chrt else []) + ["taskset", "-c", ",".join(str(c) for c in range(cpus))]
        cmd += [kpn_run, config, "--cpus", str(cpus), "--stats-json", stats.name, *extra]
        for s in sets:
            cmd += ["--set", s]
        if scheduler:
            cmd += ["--scheduler", scheduler]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        with open(stats.name) as written:
            return json.load(written)
