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
    args = ap.parse_args()
    if args.worker:
        return worker(*args.worker)
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
    main()
