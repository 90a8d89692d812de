#!/usr/bin/env python3
"""kpn-run --distributed end to end, under mpirun on this machine (tests/CMakeLists.txt registers each case
as a ctest with a timeout; every mpirun here has its own, too, so no case can hang).

usage: check_distributed.py KPN_RUN SOURCE_DIR CASE [ARG]
cases:
  configs RANKS   every config in configs/ prints on RANKS ranks what kpn-run prints without MPI
  errors          --distributed without a launcher, `rank:` beyond the count, files that differ between ranks
  broken          a reader that stops early on one rank ends its writer on another (BrokenChannel)
  failure         a process that throws on rank 1 stops rank 0 too; exit 1, the process named
  window          a capacity-1 channel across ranks stalls its writer; the JSON report merges the ranks
  deadlock        a true deadlock spanning two ranks is reported within seconds (exit 1, status "deadlock"); a
                  tree of spawned processes computing on one rank is none
  lost            a rank killed (kill -9) or stopped (SIGSTOP) mid-run: the others end within seconds, non-zero,
                  naming it
  ranks           `rank:` on replicas (round-robin, a range, a list): the placement and the output; a range beyond
                  the rank count is an error with file:line:column on every rank
  growth          Parks' growth across ranks: hamming.yaml at capacity 1 gives one machine's values on 2, 3 and 4
                  ranks; with --max-capacity too small it is a deadlock naming the channel
  interrupt       SIGINT at mpirun mid-run: every rank ends within seconds, rank 0's report says interrupted,
                  also while rank 1 is blocked writing to a stdout that mpirun no longer drains
  placement       weight hints and a pilot run (--pilot-ms) split the heavy stages of an unbalanced chain over the
                  ranks (equal weights do not); the report says which source the placement used; the same output
  example EXE     the C++ API's example (examples/distributed/squares.cpp) prints on 2 ranks, with and without a
                  pilot run, what it prints on 1 rank and without MPI
"""
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT = 60  # seconds for one mpirun; the ctest timeout is above the sum

# Overrides that keep each config short: the same as tests/networks/configs_test.cpp's.
CONFIG_SETS = {
    "fibonacci.yaml": [],
    "fork-join.yaml": ["count=20000", "branches=5"],
    # Capacity 1: its feedback loop needs Parks' growth, across ranks too (the case `growth` checks it).
    "hamming.yaml": ["count=1000"],
    "pipeline.yaml": ["count=20000", "stages=6"],
    "ring.yaml": ["nodes=12", "laps=200"],
    "unbalanced-pipeline.yaml": ["count=3000", "heavy_us=2"],
    "wordcount.yaml": ["input={src}/README.md"],
    "tree.yaml": ["depth=10", "skew=1", "work_us=1"],
    "scatter-gather.yaml": ["workers=8", "rounds=20", "work_us=10"],
}

failures = []


def env():
    e = dict(os.environ)
    # mpirun refuses root without these (containers, CI); harmless otherwise.
    e["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    e["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    # No launcher variables from an outer job: the no-launcher case must see none.
    for k in list(e):
        if k.startswith(("OMPI_COMM_WORLD", "PMIX_RANK", "PMI_RANK", "PMI_SIZE")):
            del e[k]
    return e


def run(cmd, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=env(), **kw)
    except subprocess.TimeoutExpired as ex:
        failures.append(f"timed out after {TIMEOUT} s: {' '.join(cmd)}")
        return subprocess.CompletedProcess(cmd, 124, ex.stdout or "", ex.stderr or "")


def mpirun(ranks, args):
    return ["mpirun", "--oversubscribe", "-np", str(ranks)] + args


def check(cond, what, proc=None):
    if cond:
        return
    detail = ""
    if proc is not None:
        detail = f"\n  exit {proc.returncode}\n  stdout: {proc.stdout[-2000:]!r}\n  stderr: {proc.stderr[-3000:]!r}"
    failures.append(what + detail)


def lines(text):
    return sorted(l for l in text.splitlines() if l.strip())


def case_configs(kpn_run, src, ranks):
    for name, sets in sorted(CONFIG_SETS.items()):
        path = os.path.join(src, "configs", name)
        set_args = []
        for s in sets:
            set_args += ["--set", s.format(src=src)]
        alone = run([kpn_run, path, "-q", "--cpus", "1"] + set_args)
        check(alone.returncode == 0 and alone.stdout, f"{name}: kpn-run without MPI", alone)
        spread = run(mpirun(ranks, [kpn_run, path, "--distributed", "-q", "--cpus", "1"] + set_args))
        check(spread.returncode == 0, f"{name}: on {ranks} ranks: exit status", spread)
        check(lines(spread.stdout) == lines(alone.stdout),
              f"{name}: on {ranks} ranks: {lines(spread.stdout)} instead of {lines(alone.stdout)}", spread)


def case_errors(kpn_run, src):
    pipeline = os.path.join(src, "configs", "pipeline.yaml")
    p = run([kpn_run, pipeline, "--distributed"])
    check(p.returncode == 2 and "needs an MPI launcher" in p.stderr, "--distributed without mpirun: exit 2, a clear error", p)

    beyond = os.path.join(src, "tests", "distributed", "rank-beyond.yaml")
    p = run(mpirun(2, [kpn_run, beyond, "--distributed", "-q"]))
    check(p.returncode == 2, "rank: 5 on 2 ranks: exit 2", p)
    for r in (0, 1):
        check(f"rank-beyond.yaml:5:" in p.stderr and f"rank 5 is beyond the 2 ranks of this run (0 to 1) (rank {r})" in p.stderr,
              f"rank: 5 on 2 ranks: the error with file:line:col on rank {r}", p)

    # MPMD: the two ranks are given different --set values, so their networks differ.
    p = run(["mpirun", "--oversubscribe", "-np", "1", kpn_run, pipeline, "--distributed", "-q", "--set", "count=5", ":",
             "-np", "1", kpn_run, pipeline, "--distributed", "-q", "--set", "count=6"])
    check(p.returncode == 2 and "rank 1: the network differs from rank 0's" in p.stderr
          and "rank 0: stopping: another rank reported an error" in p.stderr, "different networks on two ranks: exit 2 on both", p)


def case_broken(kpn_run, src):
    path = os.path.join(src, "tests", "distributed", "broken-across.yaml")
    alone = run([kpn_run, path, "-q"])
    spread = run(mpirun(2, [kpn_run, path, "--distributed", "-q"]))
    check(spread.returncode == 0 and lines(spread.stdout) == lines(alone.stdout) and len(lines(alone.stdout)) == 2,
          "a reader stopping early on rank 0: the same output as on one machine", spread)


def case_failure(kpn_run, src):
    path = os.path.join(src, "tests", "distributed", "throw-across.yaml")
    for ranks in (2, 3):
        p = run(mpirun(ranks, [kpn_run, path, "--distributed", "-q", "--set", f"input={src}/README.md"]))
        check(p.returncode == 1, f"a process throwing on rank 1 of {ranks}: exit 1", p)
        check("rank 1: process 'writer' failed: cannot open for writing '/nonexistent-kpn-dir/out.txt'" in p.stderr,
              f"a process throwing on rank 1 of {ranks}: the process and its error are named", p)


def case_window(kpn_run, src):
    path = os.path.join(src, "tests", "distributed", "window.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        p = run(mpirun(2, [kpn_run, path, "--distributed", "-q", "--cpus", "1", "--stats-json", stats]))
        check(p.returncode == 0 and lines(p.stdout) == lines(run([kpn_run, path, "-q"]).stdout), "window.yaml on 2 ranks", p)
        if p.returncode != 0:
            return
        with open(stats) as f:
            report = json.load(f)
    d = report.get("distributed", {})
    check(d.get("ranks") == 2 and len(d.get("per_rank", [])) == 2, f"the report has both ranks: {d}")
    check(d.get("placement", {}).get("processes") == {"src": 0, "slow": 1, "snk": 1}, f"the report has the placement: {d}")
    check(d.get("messages_crossed") == 200, f"200 messages crossed ranks: {d.get('messages_crossed')}")
    # With one message of window, every batch holds one message, and the writer waits for each credit but
    # (at most) the first: it never has two messages out.
    check(d.get("batches") == 200, f"capacity 1: one message per batch: {d.get('batches')} batches")
    check(d.get("credit_stalls", 0) >= 150, f"capacity 1 and a slow reader: the writer stalls: {d.get('credit_stalls')}")
    ranks = {r["rank"]: r for r in d.get("per_rank", [])}
    check(ranks.get(0, {}).get("messages_sent") == 200 and ranks.get(1, {}).get("messages_received") == 200,
          f"per-rank counts: {ranks}")


def heavy_split(placement):
    """How many heavy stages each rank got."""
    ranks = [r for name, r in placement.get("processes", {}).items() if name.startswith("heavy[")]
    return sorted(ranks.count(r) for r in (0, 1))


def case_placement(kpn_run, src):
    path = os.path.join(src, "tests", "distributed", "weights.yaml")
    alone = run([kpn_run, path, "-q", "--cpus", "1"])
    check(alone.returncode == 0 and alone.stdout, "weights.yaml without MPI", alone)
    # Without hints (a copy with the weights taken out), with them, and with a pilot run instead.
    with tempfile.TemporaryDirectory() as tmp:
        bare = os.path.join(tmp, "bare.yaml")
        with open(path) as f, open(bare, "w") as g:
            g.write(f.read().replace(", weight: 20", ""))
        for what, file, extra, source in (("equal weights", bare, [], "equal"), ("hints", path, [], "hints"),
                                          ("a pilot", bare, ["--pilot-ms", "300"], "pilot")):
            stats = os.path.join(tmp, "stats.json")
            p = run(mpirun(2, [kpn_run, file, "--distributed", "--cpus", "1", "--stats-json", stats] + extra))
            check(p.returncode == 0, f"{what}: exit status", p)
            if p.returncode != 0:
                continue
            check(lines(p.stdout) == lines(alone.stdout), f"{what}: the output of one machine", p)
            check(f"placement: 2 ranks (" in p.stderr, f"{what}: the placement is printed", p)
            with open(stats) as f:
                placement = json.load(f)["distributed"]["placement"]
            check(placement.get("source") == source, f"{what}: the report says source {source}: {placement}")
            split = heavy_split(placement)
            if source == "equal":
                check(split == [0, 3], f"{what}: every heavy stage on one rank (the bad case): {placement}")
            else:
                check(split == [1, 2], f"{what}: the heavy stages split over the ranks: {placement}")
            if source == "pilot":
                check(placement.get("pilot", {}).get("ms") == 300, f"{what}: the report has the pilot: {placement}")
                check("pilot run" in p.stderr, f"{what}: the summary names the pilot run", p)


def case_example(kpn_run, src, example):
    args = ["--count", "20000", "--workers", "4", "--cpus", "1"]
    alone = run([example] + args)
    check(alone.returncode == 0 and "squares: count=20000 sum=" in alone.stdout, "the example without MPI", alone)
    one = run(mpirun(1, [example] + args))
    check(one.returncode == 0 and lines(one.stdout) == lines(alone.stdout), "the example on 1 rank", one)
    for extra in ([], ["--pilot-ms", "100"]):
        two = run(mpirun(2, [example] + args + extra))
        check(two.returncode == 0 and lines(two.stdout) == lines(alone.stdout),
              f"the example on 2 ranks {extra}: {lines(two.stdout)} instead of {lines(alone.stdout)}", two)
        # square[i] are dealt over the ranks, so some of their channels to `total` (example.square, the
        # program's own type) cross ranks.
        crossing = re.search(r"placement: 2 ranks \(.*, (\d+) of \d+ channels cross ranks", two.stderr)
        check(crossing and int(crossing.group(1)) > 0, f"the example on 2 ranks {extra}: channels cross", two)
    bad = run(mpirun(2, [example, "--count", "-1"]))
    check(bad.returncode == 2 and "squares.cpp:" in bad.stderr and "count" in bad.stderr,
          "a bad argument in the C++ network: exit 2, naming the C++ line", bad)


def case_ranks(kpn_run, src):
    path = os.path.join(src, "tests", "distributed", "rank-replicas.yaml")
    alone = run([kpn_run, path, "-q"])
    check(alone.returncode == 0 and alone.stdout, "rank-replicas.yaml without MPI", alone)
    for ranks, w_rank, expect_w in ((2, "round-robin", [0, 1, 0, 1]), (3, "round-robin", [0, 1, 2, 0]), (3, "1..2", [1, 2, 1, 2])):
        what = f"rank-replicas.yaml on {ranks} ranks, w: rank: {w_rank}"
        with tempfile.TemporaryDirectory() as tmp:
            stats = os.path.join(tmp, "stats.json")
            p = run(mpirun(ranks, [kpn_run, path, "--distributed", "-q", "--cpus", "1", "--set", f"w_rank={w_rank}", "--stats-json", stats]))
            check(p.returncode == 0 and lines(p.stdout) == lines(alone.stdout), f"{what}: the output of one machine", p)
            if p.returncode != 0:
                continue
            with open(stats) as f:
                placed = json.load(f)["distributed"]["placement"]["processes"]
        check([placed.get(f"w[{i}]") for i in range(4)] == expect_w, f"{what}: w placed {placed}")
        check([placed.get(f"v[{i}]") for i in range(4)] == [1, 1, 0, 0], f"{what}: v placed by its list {placed}")
        check(placed.get("src") == 0, f"{what}: src on rank 0 {placed}")
    p = run(mpirun(2, [kpn_run, path, "--distributed", "-q", "--set", "w_rank=0..3"]))
    check(p.returncode == 2, "a range 0..3 on 2 ranks: exit 2", p)
    for r in (0, 1):
        check(f"rank-replicas.yaml:8:" in p.stderr
              and f"process 'w': the range 0..3 reaches rank 2, beyond the 2 ranks of this run (0 to 1) (rank {r})" in p.stderr,
              f"a range 0..3 on 2 ranks: the error with file:line:col on rank {r}", p)


def case_growth(kpn_run, src):
    path = os.path.join(src, "configs", "hamming.yaml")
    sets = ["--set", "count=1000", "--set", "capacity=1", "--set", "print_values=true"]
    alone = run([kpn_run, path, "-q", "--cpus", "1"] + sets)
    check(alone.returncode == 0 and "hamming" in alone.stdout, "hamming.yaml at capacity 1 without MPI", alone)
    for ranks in (2, 3, 4):
        with tempfile.TemporaryDirectory() as tmp:
            stats = os.path.join(tmp, "stats.json")
            started = time.monotonic()
            p = run(mpirun(ranks, [kpn_run, path, "--distributed", "-q", "--cpus", "1", "--stats-json", stats] + sets))
            took = time.monotonic() - started
            what = f"hamming.yaml at capacity 1 on {ranks} ranks"
            check(p.returncode == 0 and p.stdout == alone.stdout, f"{what}: one machine's values ({took:.1f} s)", p)
            if p.returncode != 0:
                continue
            with open(stats) as f:
                d = json.load(f)["distributed"]
            check(d.get("placement", {}).get("cut", 0) > 0, f"{what}: some channels cross ranks: {d.get('placement')}")
            check(d.get("channels_grown", 0) > 0, f"{what}: channels grown across ranks: {d.get('channels_grown')}")
    p = run(mpirun(2, [kpn_run, path, "--distributed", "-q", "--cpus", "1", "--max-capacity", "2"] + sets))
    check(p.returncode == 1 and "rank 0: stopped: deadlock across ranks" in p.stderr
          and "is full at capacity 2 and may not grow past the maximum capacity 2" in p.stderr,
          "hamming.yaml with --max-capacity 2 on 2 ranks: a deadlock naming the channel that may not grow", p)


def case_deadlock(kpn_run, src):
    path = os.path.join(src, "tests", "distributed", "deadlock-across.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        started = time.monotonic()
        p = run(mpirun(2, [kpn_run, path, "--distributed", "-q", "--stats-json", stats]))
        took = time.monotonic() - started
        check(p.returncode == 1, "a deadlock across two ranks: exit 1", p)
        check(took < 20, f"a deadlock across two ranks: reported in {took:.1f} s")
        for r in (0, 1):
            check(f"rank {r}: stopped: deadlock across ranks" in p.stderr, f"rank {r} names the deadlock", p)
        check("a reads 'b.out -> a.in'" in p.stderr and "b reads 'a.out -> b.in'" in p.stderr,
              "the deadlock names each blocked process and its channel", p)
        if os.path.exists(stats):
            with open(stats) as f:
                check(json.load(f).get("status") == "deadlock", "the report's status is deadlock")
        else:
            check(False, "a deadlock across two ranks: rank 0 writes the report")

    # No false one: a tree of spawned processes computing for a second or more on one rank, whose only
    # declared process ended after spawning the root's children, while the other rank has nothing to do.
    tree = os.path.join(src, "configs", "tree.yaml")
    p = run(mpirun(2, [kpn_run, tree, "--distributed", "-q", "--cpus", "1", "--set", "depth=13", "--set", "work_us=100"]))
    check(p.returncode == 0 and lines(p.stdout) == ["root: nodes=16383"],
          "spawned processes running on one rank are no deadlock across ranks", p)


class Started:
    """An mpirun started in the background, its stdout read line by line (the run's sign of life) and
    its stderr collected in a file, killed with every rank it started if a case leaves it running."""

    def __init__(self, args, tmp):
        self.err_path = os.path.join(tmp, "stderr")
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.err, env=env(),
                                     start_new_session=True)
        self.out = []
        self.pending = b""  # read from stdout, not yet a whole line

    def lines_until(self, done, timeout):
        """Reads stdout with os.read (select, bounded: no buffer of Python's hides a line from select) line by
        line until done(line) is true; False if stdout ended or the time ran out first."""
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.pending:
                raw, self.pending = self.pending.split(b"\n", 1)
                line = raw.decode(errors="replace") + "\n"
                self.out.append(line)
                if done(line):
                    return True
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return False
            chunk = os.read(fd, 65536)
            if not chunk:
                return False
            self.pending += chunk

    def first_line(self, timeout):
        """Waits for the first line on stdout: the network is running on every rank."""
        return self.lines_until(lambda line: True, timeout)

    def read_through(self, last, timeout):
        """Reads stdout until a line equal to `last` has come (a pseudo-terminal's CR LF or LF at its end)."""
        if any(l.rstrip("\r\n") == last for l in self.out):
            return True
        return self.lines_until(lambda line: line.rstrip("\r\n") == last, timeout)

    def rank_pid(self, rank):
        """The pid of rank `rank`: the child of mpirun whose environment says OMPI_COMM_WORLD_RANK=rank."""
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                if ppid != self.proc.pid:
                    continue
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if f"OMPI_COMM_WORLD_RANK={rank}".encode() in f.read().split(b"\0"):
                        return int(entry)
            except (OSError, ValueError, IndexError):
                continue
        return None

    def wait(self, timeout):
        """(exit status, seconds it took, stderr); None for the status if it did not end in time."""
        started = time.monotonic()
        try:
            rest, _ = self.proc.communicate(timeout=timeout)
            code = self.proc.returncode
        except subprocess.TimeoutExpired:
            code, rest = None, ""
        took = time.monotonic() - started
        self.kill()
        self.out.append((self.pending + (rest or b"")).decode(errors="replace"))
        self.err.close()
        with open(self.err_path) as f:
            return code, took, f.read()

    def kill(self):
        # mpirun and its ranks share the session started for it: nothing outlives the case.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


def long_run(kpn_run, src, ranks, extra, tmp, mpirun_options=(), text=None):
    path = os.path.join(src, "tests", "distributed", "long-run.yaml")
    args = ["mpirun", "--oversubscribe", *mpirun_options, "-np", str(ranks), kpn_run, path, "--distributed", "-q", "--cpus", "1",
            "--set", f"input={text or os.path.join(src, 'README.md')}"] + extra
    s = Started(args, tmp)
    if not s.first_line(TIMEOUT):
        code, _, err = s.wait(0)
        failures.append(f"long-run.yaml on {ranks} ranks: no output within {TIMEOUT} s (exit {code}): {err[-2000:]!r}")
        return None
    return s


def lost_case(kpn_run, src, what, sig, mpirun_options, kpn_names_it):
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        s = long_run(kpn_run, src, 2, ["--peer-timeout", "2", "--stats-json", stats], tmp, mpirun_options)
        if s is None:
            return
        pid = s.rank_pid(1)
        check(pid is not None, f"{what}: rank 1's pid is found among mpirun's children")
        if pid is None:
            s.wait(0)
            return
        os.kill(pid, sig)
        code, took, err = s.wait(30)
        check(code is not None and took < 15, f"{what}: the job ended {took:.1f} s after (exit {code}); stderr: {err[-3000:]!r}")
        named_by_kpn = "kpn-run: rank 0: rank 1 stopped answering" in err or "kpn-run: rank 0: stopped: rank 1 stopped answering" in err
        if kpn_names_it:
            check(named_by_kpn, f"{what}: rank 0 names rank 1 as lost; stderr: {err[-3000:]!r}")
            if os.path.exists(stats):
                with open(stats) as f:
                    report = json.load(f)
                d = report.get("distributed", {})
                check(report.get("status") == "failed" and "rank 1 stopped answering" in (d.get("lost") or "")
                      and d.get("exit_status") == 1, f"{what}: the report says failed, rank 1 lost, exit 1: {report.get('status')} {d}")
            else:
                check(False, f"{what}: rank 0 writes its report")
        else:
            # Open MPI's mpirun ends the job itself (SIGTERM to the others, SIGKILL 1 s later) and names the
            # dead rank; kpn's own message comes only if the SIGTERM leaves it 0.7 s (docs/distributed.md).
            check(named_by_kpn or "process rank 1 " in err, f"{what}: rank 1 is named; stderr: {err[-3000:]!r}")
        return code


def case_lost(kpn_run, src):
    # kill -9 under mpirun's defaults: mpirun ends the job; non-zero, bounded, the dead rank named.
    code = lost_case(kpn_run, src, "rank 1 killed", signal.SIGKILL, [], False)
    check(code is None or code != 0, f"rank 1 killed: mpirun exits non-zero, not {code}")
    # kill -9 under --enable-recovery: mpirun lets rank 0 run on; kpn's liveness check stops it and names
    # rank 1 (mpirun itself then exits 0 in this mode: Open MPI's choice; the report has the status).
    lost_case(kpn_run, src, "rank 1 killed, mpirun --enable-recovery", signal.SIGKILL, ["--enable-recovery"], True)
    # SIGSTOP: nothing dies, mpirun sees nothing; only kpn's liveness check can end the job.
    code = lost_case(kpn_run, src, "rank 1 stopped", signal.SIGSTOP, [], True)
    check(code is None or code != 0, f"rank 1 stopped: mpirun exits non-zero, not {code}")


def appears_within(path, proc, timeout):
    """Seconds until `path` exists and is not empty, polled every 10 ms while `proc` runs; None if never."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        ended = proc.poll() is not None  # looked at first: a report written just before the end still counts
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return time.monotonic() - started
        if ended:
            return None
        time.sleep(0.01)
    return None


def interrupt_case(kpn_run, src, ranks, mid_copy):
    """SIGINT at mpirun. mid_copy: while rank 1 still copies 3 MiB to its stdout, which mpirun stops
    draining once it has the SIGINT (it sleeps between its signals), so that rank 1 is blocked in write(2)
    inside a blocking call, which the stop must interrupt (lines.write's calls are interruptible,
    blocking_call.hpp). Otherwise after the copy of README.md is through."""
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        text = None
        if mid_copy:
            text = os.path.join(tmp, "big.txt")
            with open(text, "w") as f:
                for i in range(60000):
                    f.write(f"line {i:06d} " + "x" * 40 + "\n")
        s = long_run(kpn_run, src, ranks, ["--stats-json", stats], tmp, text=text)
        if s is None:
            return
        what = f"SIGINT at mpirun, {ranks} ranks" + (", rank 1 blocked writing to stdout" if mid_copy else "")
        if not mid_copy:
            with open(os.path.join(src, "README.md")) as f:
                last = [l.rstrip("\n") for l in f if l.strip()][-1]
            if not s.read_through(last, TIMEOUT):
                code, _, err = s.wait(0)
                check(False, f"{what}: the input is copied to stdout before the SIGINT (exit {code}); stderr: {err[-2000:]!r}")
                return
        signalled = time.monotonic()
        os.kill(s.proc.pid, signal.SIGINT)
        report_at = appears_within(stats, s.proc, 30)
        code, _, err = s.wait(30)
        took = time.monotonic() - signalled
        # Printed for the record (ctest -V). mpirun (Open MPI 4.1) answers SIGINT with SIGCONT to every rank,
        # SIGTERM 1 s later and SIGKILL 1 s after that (odls_base_sigkill_timeout); the report comes
        # milliseconds after the SIGTERM.
        print(f"{what}: report {'never' if report_at is None else f'{report_at:.3f} s'} after the SIGINT, "
              f"mpirun ended after {took:.1f} s")
        check(code is not None and code != 0 and took < 10, f"{what}: ended {took:.1f} s after, exit {code}; stderr: {err[-3000:]!r}")
        check("kpn-run: rank 0: interrupted by SIG" in err or "kpn-run: rank 0: stopped: rank " in err,
              f"{what}: rank 0 says it was interrupted; stderr: {err[-3000:]!r}")
        if not os.path.exists(stats):
            check(False, f"{what}: rank 0 writes the report; stderr: {err[-3000:]!r}")
            return
        with open(stats) as f:
            report = json.load(f)
        d = report.get("distributed", {})
        per_rank = d.get("per_rank", [])
        check(report.get("status") == "interrupted" and len(per_rank) == ranks and d.get("lost") is None,
              f"{what}: the report says interrupted and has every rank: {report.get('status')} {d.get('lost')} {len(per_rank)}")
        # A rank with no process (rank 2 of 3: long-run.yaml places everything on 0 and 1) ends at once, "ok".
        check(all(r.get("status") == "interrupted" for r in per_rank if r.get("processes", 0) > 0),
              f"{what}: every rank with processes was interrupted: {[(r.get('rank'), r.get('status')) for r in per_rank]}")
        check(d.get("messages_crossed", 0) > 0, f"{what}: the report has what ran: {d.get('messages_crossed')} messages crossed")


def case_interrupt(kpn_run, src):
    for ranks in (2, 3):
        interrupt_case(kpn_run, src, ranks, mid_copy=False)
        interrupt_case(kpn_run, src, ranks, mid_copy=True)


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    kpn_run, src, case = sys.argv[1], sys.argv[2], sys.argv[3]
    if case == "configs":
        case_configs(kpn_run, src, int(sys.argv[4]))
    elif case == "example":
        case_example(kpn_run, src, sys.argv[4])
    elif case in ("errors", "broken", "failure", "window", "deadlock", "lost", "interrupt", "ranks", "growth", "placement"):
        globals()["case_" + case](kpn_run, src)
    else:
        print(f"unknown case {case}", file=sys.stderr)
        return 2
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    if failures:
        return 1
    print(f"check_distributed {case}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
