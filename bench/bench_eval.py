#!/usr/bin/env python3
"""Benchmark: parse + evaluate a TREC run, harness vs pytrec_eval (vs ranx, if installed).

    .venv/bin/python bench/bench_eval.py                 # 1M-line run
    .venv/bin/python bench/bench_eval.py --sizes 1M,10M  # and the 10M-line run

Data comes from ../shared/bench/gen_synth.py (seeded; graded qrels, ~2% tied scores), written
once into bench/out/ (git-ignored) and reused. Each tool runs in a fresh subprocess per
repetition; we report the median wall time of "read run + qrels, evaluate AP, nDCG@10, P@10,
R@100, RR, nDCG" and the subprocess's peak RSS (ru_maxrss, interpreter and imports included
for every tool alike), plus both as ratios to pytrec_eval. The means of all tools are compared
as a sanity check (ranx breaks ties differently, so small differences are expected there).

ranx is not a dependency; to include it: ``.venv/bin/pip install ranx``.

    .venv/bin/python bench/bench_eval.py --trec-eval PATH/trec_eval [--sizes 1M,10M]

The drop-in (issue 26): whole processes as a user times them, ``trec_eval -m all_trec -q QRELS
RUN > file`` against ``harness trec_eval`` with the same arguments and against pytrec_eval
computing every all_trec measure per topic (its Python process reads the files, as a script
would); wall time and peak RSS, and the harness's output checked byte-identical to trec_eval's.
PATH is trec_eval 9.0.8 built from its source (``make`` in a checkout of usnistgov/trec_eval at
tag v9.0.8; the benchmark downloads nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
GEN = HERE.parents[1] / "shared" / "bench" / "gen_synth.py"
SIZES = {"1M": (1000, 1), "10M": (10000, 2)}  # queries (x1000 docs each), seed
MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR", "nDCG"]
PYTREC = {
    "AP": ("map", "map"),
    "nDCG@10": ("ndcg_cut.10", "ndcg_cut_10"),
    "P@10": ("P.10", "P_10"),
    "R@100": ("recall.100", "recall_100"),
    "RR": ("recip_rank", "recip_rank"),
    "nDCG": ("ndcg", "ndcg"),
}
RANX = {"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10", "R@100": "recall@100", "RR": "mrr", "nDCG": "ndcg"}


# --------------------------------------------------------------------------- workers
def run_harness(run_path, qrels_path):
    sys.path.insert(0, str(HERE.parent))
    from harness.formats.qrels import read_qrels
    from harness.formats.runs import read_run
    from harness.metrics import evaluate

    ev = evaluate(read_run(run_path), read_qrels(qrels_path), MEASURES)
    return ev.means


def run_pytrec_eval(run_path, qrels_path):
    import pytrec_eval

    qrels: dict = {}
    with open(qrels_path) as f:
        for line in f:
            q, _, d, r = line.split()
            qrels.setdefault(q, {})[d] = int(r)
    run: dict = {}
    with open(run_path) as f:
        for line in f:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {v[0] for v in PYTREC.values()})
    res = ev.evaluate(run)
    return {m: sum(v[key] for v in res.values()) / len(res) for m, (_, key) in PYTREC.items()}


def run_ranx(run_path, qrels_path):
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(str(qrels_path), kind="trec")
    run = Run.from_file(str(run_path), kind="trec")
    res = evaluate(qrels, run, list(RANX.values()))
    return {m: float(res[name]) for m, name in RANX.items()}


WORKERS = {"harness": run_harness, "pytrec_eval": run_pytrec_eval, "ranx": run_ranx}


def worker(tool, run_path, qrels_path):
    import resource

    t0 = time.perf_counter()
    means = WORKERS[tool](run_path, qrels_path)
    seconds = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "rss_mb": rss_mb, "means": means}))


# --------------------------------------------------------------------------- driver
def ensure_data(size):
    queries, seed = SIZES[size]
    name = f"eval{size}"
    run, qrels = OUT / f"{name}.run1", OUT / f"{name}.qrels"
    if not (run.exists() and qrels.exists()):
        if not GEN.exists():
            sys.exit(f"missing generator {GEN}: check out ../shared beside the repo")
        print(f"generating {size}-line run into {OUT} ...", flush=True)
        subprocess.run(
            [
                sys.executable,
                str(GEN),
                "--name",
                name,
                "--queries",
                str(queries),
                "--depth",
                "1000",
                "--seed",
                str(seed),
                "--out",
                str(OUT),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return run, qrels


def available(tool):
    if tool != "ranx":
        return True
    probe = subprocess.run([sys.executable, "-c", "import ranx"], capture_output=True)
    return probe.returncode == 0


def measure(tool, run, qrels, repeat, threads):
    env = dict(os.environ)
    if threads:
        env["HARNESS_THREADS"] = str(threads)
    results = []
    for _ in range(repeat):
        p = subprocess.run(
            [sys.executable, __file__, "--worker", tool, str(run), str(qrels)], capture_output=True, text=True, env=env
        )
        if p.returncode != 0:
            sys.exit(f"{tool} failed:\n{p.stderr}")
        results.append(json.loads(p.stdout.strip().splitlines()[-1]))
    return {
        "seconds": statistics.median(r["seconds"] for r in results),
        "all_seconds": [round(r["seconds"], 2) for r in results],
        "rss_mb": max(r["rss_mb"] for r in results),
        "means": results[0]["means"],
    }


# ---------------------------------------------------------------- the trec_eval drop-in
ALL_TREC = ["-m", "all_trec", "-q"]


def _child(argv, stdout_path):
    """Run ``argv`` writing stdout to a file: (wall seconds, peak RSS MB, return code)."""
    t0 = time.perf_counter()
    with open(stdout_path, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        sys.exit(f"{argv[0]} failed ({proc.returncode}):\n{err}")
    return seconds, usage.ru_maxrss / 1024


PYTREC_ALL = r"""
import sys, pytrec_eval
qrels, run = {}, {}
for line in open(sys.argv[1]):
    q, _, d, r = line.split()
    qrels.setdefault(q, {})[d] = int(r)
for line in open(sys.argv[2]):
    q, _, d, _, s, _ = line.split()[:6]
    run.setdefault(q, {})[d] = float(s)
ev = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures)
res = ev.evaluate(run)
for q in sorted(res):
    for k, v in res[q].items():
        print(f"{k}\t{q}\t{v:.4f}")
"""


def main_trec_eval(binary: str, sizes: list[str], repeat: int) -> int:
    harness = [sys.executable, "-m", "harness", "trec_eval"]
    print(f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.2f} repeat={repeat}; whole processes, median wall time")
    for size in sizes:
        run, qrels = ensure_data(size)
        rows = {}
        for name, argv in (
            ("trec_eval", [binary, *ALL_TREC, str(qrels), str(run)]),
            ("harness", [*harness, *ALL_TREC, str(qrels), str(run)]),
            ("pytrec_eval", [sys.executable, "-c", PYTREC_ALL, str(qrels), str(run)]),
        ):
            times, peak = [], 0.0
            for _ in range(repeat):
                sec, mb = _child(argv, OUT / f"te-{name}.out")
                times.append(sec)
                peak = max(peak, mb)
            rows[name] = (statistics.median(times), peak, [round(t, 2) for t in times])
        same = (OUT / "te-harness.out").read_bytes() == (OUT / "te-trec_eval.out").read_bytes()
        base_s, base_mb, _ = rows["trec_eval"]
        print(f"\n{size} lines ({run.stat().st_size / 1e6:.0f} MB run): -m all_trec -q")
        print(f"  {'tool':<12} {'seconds':>8} {'x trec_eval':>12} {'peak MB':>8} {'x trec_eval':>12}  runs")
        for name, (sec, mb, all_s) in rows.items():
            print(f"  {name:<12} {sec:>8.2f} {sec / base_s:>12.3f} {mb:>8.0f} {mb / base_mb:>12.3f}  {all_s}")
        print(f"  harness output byte-identical to trec_eval's: {same}")
        if not same:
            return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1M", help="comma-separated, of: " + ", ".join(SIZES))
    ap.add_argument("--repeat", type=int, default=3, help="subprocess runs per tool (median time)")
    ap.add_argument("--tools", default="harness,pytrec_eval,ranx")
    ap.add_argument(
        "--threads",
        type=int,
        default=0,
        help="harness parsing threads (HARNESS_THREADS; default: the harness default, 2)",
    )
    ap.add_argument("--worker", nargs=3, metavar=("TOOL", "RUN", "QRELS"), help=argparse.SUPPRESS)
    ap.add_argument("--trec-eval", metavar="BINARY", help="time the trec_eval drop-in against this trec_eval")
    args = ap.parse_args()
    if args.worker:
        return worker(*args.worker)
    if args.trec_eval:
        OUT.mkdir(parents=True, exist_ok=True)
        return main_trec_eval(args.trec_eval, args.sizes.split(","), args.repeat)
    OUT.mkdir(parents=True, exist_ok=True)
    tools = [t for t in args.tools.split(",") if t]
    for t in tools:
        if t not in WORKERS:
            sys.exit(f"unknown tool {t!r}; valid tools: {', '.join(WORKERS)}")
    skipped = [t for t in tools if not available(t)]
    tools = [t for t in tools if t not in skipped]
    print(
        f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.2f} repeat={args.repeat} "
        f"harness threads={args.threads or os.environ.get('HARNESS_THREADS', 'default (2)')}"
        + (f"  (not installed: {', '.join(skipped)}; pip install ranx to include it)" if skipped else "")
    )
    for size in args.sizes.split(","):
        if size not in SIZES:
            sys.exit(f"unknown size {size!r}; valid sizes: {', '.join(SIZES)}")
        run, qrels = ensure_data(size)
        res = {t: measure(t, run, qrels, args.repeat, args.threads) for t in tools}
        base = res.get("pytrec_eval")
        print(f"\n{size} lines ({run.stat().st_size / 1e6:.0f} MB run): parse + evaluate {', '.join(MEASURES)}")
        print(f"  {'tool':<12} {'seconds':>8} {'x pytrec':>9} {'peak MB':>8} {'x pytrec':>9}  runs")
        for t, r in res.items():
            rt = f"{r['seconds'] / base['seconds']:.3f}" if base else "-"
            rm = f"{r['rss_mb'] / base['rss_mb']:.3f}" if base else "-"
            print(f"  {t:<12} {r['seconds']:>8.2f} {rt:>9} {r['rss_mb']:>8.0f} {rm:>9}  {r['all_seconds']}")
        if base:
            for t, r in res.items():
                diff = max(abs(r["means"][m] - base["means"][m]) for m in MEASURES)
                print(f"  max |mean - pytrec_eval mean| {t:<12} {diff:.2e}")


if __name__ == "__main__":
    sys.exit(main())
