#!/usr/bin/env python3
"""What timing every query costs (issue 50 item 3): `harness run` with the search times and without.

The budget: at most 2% of `harness run` at bench_ladder.py's 1M rung. This script runs `harness
run` at a rung of the ladder (default 100k: MS MARCO's shape, 6,980 topics, BM25 at depth 1000,
RR@10 and R@1000, the default report; bench_ladder.config) on this tree and on a baseline
revision without the timing (--baseline REV, extracted with `git archive`), the trees
alternating process by process, on one index (built once by this tree: the index does not
depend on the timing; read into the page cache first), the run cache emptied before each run so
that every run searches; --repeat fresh processes per tree, measured by bench_e2e.measure (wall,
CPU of the process and its children). Figures: the medians of the wall, the CPU and the search
(the run's `seconds` in manifest.json: the driver's wall time of the search, the same measure in
both trees), and this tree's over the baseline's.

On a shared machine wall times include waiting for a core, and two runs of `harness run` differ
by far more than 2%: compare the columns of one run of the script, and CPU seconds. So what the
timing adds is also measured on its own, which other load disturbs far less: the clock (a Java
loop of System.nanoTime calls, bench/java/ClockCost.java compiled with the Eclipse compiler
`ecj`, Debian package ecj: BatchSearcher reads it twice a query), pyjnius reflecting the class a
search returns (`BatchSearcher$Timed`, once a process), and the bookkeeping in Python (the times
read from Java, the figures, the record the run cache keeps), for the rung's topics.

    .venv/bin/python bench/bench_latency.py --baseline REV [--rung 100k] [--repeat 5]

REV: the revision before the timing (the parent of the commit "BatchSearcher times each query").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from bench_e2e import measure  # noqa: E402  the launcher every benchmark measures with
from bench_ladder import config, machine, warm  # noqa: E402  the ladder's config, machine line, page cache
from ladder_data import RUNGS, generate  # noqa: E402

# The first return of a batch search: pyjnius reflects BatchSearcher's Timed (milliseconds, printed).
REFLECT_SCRIPT = r"""
import time
from harness.engine import lucene
lucene.jclass("harness.BatchSearcher")
t = time.perf_counter()
lucene.jclass("harness.BatchSearcher$Timed")
print((time.perf_counter() - t) * 1e3)
"""


def baseline_tree(rev: str, into: Path) -> tuple[str, Path]:
    """The package of revision ``rev`` (its committed Java classes included) in ``into``."""
    short = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.strip()
    archive = subprocess.run(["git", "archive", short, "harness"], cwd=REPO, check=True, capture_output=True)
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)
    return short, into


def one_run(tree: Path, cfg: Path, index: Path, report: Path) -> dict:
    """`harness run CONFIG` from ``tree`` (its package first on the path), the run cache emptied first."""
    shutil.rmtree(index / "harness-runs", ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    m = measure([sys.executable, "-m", "harness", "run", cfg], env=env, cwd=tree, ok=(0,))
    entry = json.loads((report / "manifest.json").read_text())["runs"][0]
    return {"seconds": m["seconds"], "cpu": m["cpu"], "search": entry["seconds"], "latency": entry.get("latency")}


def reflect_ms() -> float:
    """Milliseconds pyjnius takes to reflect BatchSearcher's Timed, in a fresh process of this tree."""
    r = subprocess.run([sys.executable, "-c", REFLECT_SCRIPT], cwd=REPO, check=True, capture_output=True, text=True)
    return float(r.stdout.strip().splitlines()[-1])


def clock_ns(work: Path) -> float | None:
    """Nanoseconds of one System.nanoTime call (bench/java/ClockCost.java; None without ecj)."""
    from harness.engine import lucene

    ecj = shutil.which("ecj")
    if not ecj:
        print("no ecj (apt-get install ecj): the clock's cost is not measured")
        return None
    src = HERE / "java" / "ClockCost.java"
    subprocess.run([ecj, "-17", "-proc:none", "-nowarn", "-d", str(work), str(src)], check=True)
    java = lucene.java_home()[0] / "bin" / "java"
    out = subprocess.run([java, "-cp", work, "ClockCost", "10000000", "20"], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[0])


def bookkeeping_ms(n: int) -> float:
    """Milliseconds of what the timing adds in Python for ``n`` queries: the times read from the
    bytes Java returns, the manifest's figures, the run cache's record as JSON (median of 20)."""
    import numpy as np

    from harness.engine.latency import SearchTimes

    raw = np.random.default_rng(50).integers(100_000, 50_000_000, n).astype("<i8").tobytes()

    class Timed:  # what BatchSearcher returns, as pyjnius hands it over
        def nanos(self):
            return self

        def tostring(self):
            return raw

        def wall(self):
            return 10**10

        def threads(self):
            return 2

    def work():
        times = SearchTimes.of(Timed())
        times.figures()
        json.dumps(times.record())

    return statistics.median(timeit.repeat(work, number=1, repeat=20)) * 1e3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required=True, metavar="REV", help="a revision without the timing")
    ap.add_argument("--rung", default="100k", help=f"of {', '.join(RUNGS)}")
    ap.add_argument("--repeat", type=int, default=5, help="`harness run` processes per tree (median)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    n = RUNGS[args.rung]
    data = generate(n, OUT, on=lambda s: print(s, flush=True))
    d = OUT / f"latency-{n}"
    d.mkdir(parents=True, exist_ok=True)
    cfg = config(d, data, args.threads)
    index, report = d / "index", d / "report"
    if not (index / "harness-index.json").exists():
        t = time.perf_counter()
        measure([sys.executable, "-m", "harness", "index", cfg], cwd=REPO, ok=(0,))
        print(f"[{args.rung}] index built in {time.perf_counter() - t:.0f} s", flush=True)
    warm(index)
    topics = sum(1 for line in data["topics"].read_text().splitlines() if line.strip())
    print(f"{machine()}; load {os.getloadavg()[0]:.1f}; {args.rung} rung, {topics} topics, {args.threads} threads")
    with tempfile.TemporaryDirectory() as tmp:
        rev, base = baseline_tree(args.baseline, Path(tmp) / "baseline")
        trees = {f"baseline {rev}": base, "this tree": REPO}
        got: dict[str, list[dict]] = {label: [] for label in trees}
        for k in range(args.repeat):
            for label, tree in trees.items():
                got[label].append(one_run(tree, cfg, index, report))
                print(f"  {k + 1}/{args.repeat} {label}: {got[label][-1]['seconds']:.1f} s", flush=True)
    med = {
        label: {key: statistics.median(r[key] for r in runs) for key in ("seconds", "cpu", "search")}
        for label, runs in got.items()
    }
    (b, t) = (med[label] for label in trees)
    print(
        f"\n`harness run`: medians of {args.repeat} runs each, trees alternating; load at the end {os.getloadavg()[0]:.1f}"
    )
    print("| tree | `harness run` wall s | CPU s | search s (manifest) | all wall s |")
    print("|---|---:|---:|---:|---|")
    for label, runs in got.items():
        m = med[label]
        print(
            f"| {label} | {m['seconds']:.2f} | {m['cpu']:.2f} | {m['search']:.2f} | {[round(r['seconds'], 1) for r in runs]} |"
        )
    print(
        f"| this / baseline | {t['seconds'] / b['seconds']:.3f} | {t['cpu'] / b['cpu']:.3f} | "
        f"{t['search'] / b['search']:.3f} | |"
    )
    python_ms, once_ms = bookkeeping_ms(topics), reflect_ms()
    with tempfile.TemporaryDirectory() as tmp:
        ns = clock_ns(Path(tmp))
    added = python_ms + once_ms + (0.0 if ns is None else 2 * ns * topics / 1e6)
    print(f"\nwhat the timing adds for {topics} queries: the Python bookkeeping {python_ms:.2f} ms", end="")
    print(f", Timed reflected once {once_ms:.2f} ms", end="")
    print(
        "" if ns is None else f", the clock {ns:.1f} ns a call, twice a query: {2 * ns * topics / 1e6:.2f} ms", end=""
    )
    print(f"; together {added:.2f} ms, {100 * added / 1e3 / t['seconds']:.3f}% of this tree's `harness run`")
    print("this tree's latency (the last run):", json.dumps(got["this tree"][-1]["latency"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
