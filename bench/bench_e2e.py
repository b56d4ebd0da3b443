#!/usr/bin/env python3
"""Whole-process benchmark: what a user times, each tool a fresh process, in one run.

  run        `harness run CONFIG` (index built beforehand, run cache emptied) against a
             SimpleSearcher batch script as a whole process (JVM start, index open,
             `batch_search`, the TREC run written as pyserini's writer does), BM25 at depth
             1000, on Cranfield topics x10 (2,250 topics) and on the synthetic corpus of
             bench_search.py (200,000 documents, 2,000 topics). The two runs are checked
             identical (doc ids and ranks; scores within 1e-4) before anything is printed.
  floor      the same queries in a process that only starts the JVM, opens the index and
             searches (FLOOR_SCRIPT): harness run / floor is what the harness adds.
  re-run     the same `harness run` again, everything cached: the whole process, and the
             run phase alone ("reused ... in X s") against the first run's search phase.
  evaluate   `harness evaluate RUN QRELS -m AP nDCG@10 P@10 R@100 RR nDCG` against pytrec_eval
             (parse + evaluate, as bench_eval.py does) on the 1M and 10M-line runs of
             ../shared/bench/gen_synth.py, with the scores written in four formats: 4 decimals
             (the generator's), 6 decimals, repr() floats (17 digits), scientific notation.
             Means are checked equal to pytrec_eval's (1e-12).
  startup    `python -c "import harness"`, `harness --help`, `harness validate CONFIG`.

Times are medians of --repeat fresh processes (wall clock); peak memory is the process's
maximum RSS, JVM included, read by a small launcher process (measure()), never by this one. The machine may be shared: ratios from one run of this
script are what to compare.

    .venv/bin/python bench/bench_e2e.py [--repeat 3] [--sizes 1M,10M] [--parts run,evaluate,startup]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out" / "e2e"
CRANFIELD = REPO.parent / "shared" / "collections" / "cranfield"
GEN = REPO.parent / "shared" / "bench" / "gen_synth.py"
BIN = Path(sys.executable).parent
HARNESS = [sys.executable, "-m", "harness"]
FORMATS = ["4 decimals", "6 decimals", "repr", "scientific"]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from bench_eval import MEASURES, PYTREC, SIZES  # noqa: E402  the same measures, names and runs

# ----------------------------------------------------------------------------- processes
# Peak memory from a small parent. Linux starts a child's ru_maxrss at the size of the process it
# was forked from (the address space copied, or shared by vfork, until exec), so a bench holding
# a corpus read every child's peak as at least its own (2,111 MB for every tool, issue 37). This
# launcher, a bare interpreter of ~10 MB, runs the command and reports RUSAGE_CHILDREN: the
# command's own peak, its wall and CPU time.
LAUNCHER = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.call(sys.argv[2:], stdin=subprocess.DEVNULL)
seconds = time.perf_counter() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    json.dump({"rc": rc, "seconds": seconds, "rss_kb": u.ru_maxrss, "cpu": u.ru_utime + u.ru_stime}, f)
"""


def measure(cmd, env=None, ok=(0, 1), cwd=None) -> dict:
    """One fresh process through LAUNCHER: {seconds, rss_mb, cpu, out (stdout+stderr), rc}."""
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".json") as report:
        p = subprocess.run(
            [sys.executable, "-I", "-S", "-c", LAUNCHER, report.name, *map(str, cmd)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            text=True,
        )
        got = json.loads(report.read() or "{}")
    if p.returncode != 0 or "rc" not in got:
        raise SystemExit(f"the launcher failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stdout[-3000:]}")
    if ok is not None and got["rc"] not in ok:
        raise SystemExit(f"failed ({got['rc']}): {' '.join(map(str, cmd))}\n{p.stdout[-3000:]}")
    return {
        "seconds": got["seconds"],
        "rss_mb": got["rss_kb"] / 1024,
        "cpu": got["cpu"],
        "out": p.stdout,
        "rc": got["rc"],
    }


def timed(cmd, env=None, stdin=None) -> tuple[float, float, str, float]:
    """(wall seconds, peak RSS MB, stdout+stderr, CPU seconds: user + system) of one fresh
    process (:func:`measure`). On a shared machine CPU time is the steadier figure: wall time
    includes waiting for a core."""
    m = measure(cmd, env=env)
    return m["seconds"], m["rss_mb"], m["out"], m["cpu"]


def median_of(runs) -> dict:
    return {
        "seconds": statistics.median(r[0] for r in runs),
        "all": [round(r[0], 2) for r in runs],
        "rss_mb": max(r[1] for r in runs),
        "out": runs[-1][2],
        "cpu": statistics.median(r[3] for r in runs),
    }


# ----------------------------------------------------------------------------- retrieval
SIMPLE_SCRIPT = r"""
import sys
from harness.engine import lucene   # only for the classpath: the JVM with Anserini's fatjar
index, topics, out, depth, threads = sys.argv[1:6]
pairs = [l.rstrip("\n").split("\t", 1) for l in open(topics, encoding="utf-8") if l.strip()]
J = lucene.jclass
ss = J("io.anserini.search.SimpleSearcher")(index)
ss.set_bm25(0.9, 0.4)
def jlist(items):   # what pyserini's LuceneSearcher.batch_search does
    a = J("java.util.ArrayList")()
    for x in items:
        a.add(x)
    return a
qids = [q for q, _ in pairs]
hits = ss.batch_search(jlist([t for _, t in pairs]), jlist(qids), int(depth), int(threads))
with open(out, "w") as f:   # pyserini's TREC writer: one formatted line per hit
    for q in qids:
        for rank, h in enumerate(hits.get(q), start=1):
            f.write(f"{q} Q0 {h.docid} {rank} {h.score:.6f} Anserini\n")
"""


# The floor of `harness run`: what no retrieval harness can avoid, as a whole process: the
# interpreter, the JVM start, opening the index (its reader and the external ids every run file
# needs) and the Lucene search of the same queries, with the harness's own batch searcher and the
# same threads; nothing evaluated, nothing written.
FLOOR_SCRIPT = r"""
import sys
from harness.engine.index import IndexOptions
from harness.engine.search import Searcher
from harness.specs.similarity import Similarity
index, topics, depth, threads = sys.argv[1:5]
queries = [l.rstrip("\n").split("\t", 1)[1] for l in open(topics, encoding="utf-8") if l.strip()]
searcher = Searcher(index, IndexOptions())
counts, docs, scores = searcher.search_arrays(queries, Similarity.parse("bm25(k1=0.9,b=0.4)"), int(depth), int(threads))
print(int(counts.sum()), "hits")
"""


def cranfield_x10(d: Path) -> tuple[Path, Path]:
    d.mkdir(parents=True, exist_ok=True)
    topics, qrels = d / "topics-x10.tsv", d / "qrels-x10.txt"
    if not topics.exists():
        base = (CRANFIELD / "topics.tsv").read_text().splitlines()
        topics.write_text("".join(f"{i}_{line}\n" for i in range(10) for line in base if line.strip()))
        judged = (CRANFIELD / "qrels.txt").read_text().splitlines()
        qrels.write_text("".join(f"{i}_{line}\n" for i in range(10) for line in judged if line.strip()))
    return topics, qrels


EXPLORER = None  # --explorer-depth: report.explorer_depth in the configs (None: the default)


def config(d: Path, name, corpus, topics, qrels, threads) -> Path:
    cfg = d / "config.yaml"
    lines = [
        f"name: {name}",
        f"collection: {{path: {corpus}, format: jsonl}}",
        f"index: {{path: {d / 'index'}, threads: {threads}}}",
        f"topics: {{path: {topics}, format: tsv}}",
        *([f"qrels: {qrels}"] if qrels else []),
        "runs:",
        "  - bm25: {k1: 0.9, b: 0.4}",
        "depth: 1000",
        "measures: [AP, P@10, nDCG@10]" if qrels else "",
        f"output: {d / 'report'}",
        *([f"report: {{explorer_depth: {EXPLORER}}}"] if EXPLORER is not None else []),
    ]
    cfg.write_text("\n".join(lines) + "\n")
    return cfg


def same_runs(a: Path, b: Path) -> float:
    """Max score difference of two runs with the same (qid, Q0, docid, rank) lines. Streams
    both files: this process stays small, since a child's peak RSS starts from its parent's."""
    diff = 0.0
    with open(a) as fa, open(b) as fb:
        for n, (x, y) in enumerate(zip(fa, fb, strict=True), start=1):
            x, y = x.split(), y.split()
            if x[:4] != y[:4]:
                raise SystemExit(f"RUNS DIFFER on line {n}: {a} vs {b}")
            diff = max(diff, abs(float(x[4]) - float(y[4])))
    if diff > 1e-4:
        raise SystemExit(f"RUNS DIFFER in scores by {diff}: {a} vs {b}")
    return diff


def phase_seconds(log: str, word: str) -> float:
    m = re.search(rf"run .+?: {word} \d+ topics in ([0-9.]+) s", log)
    return float(m.group(1)) if m else float("nan")


def bench_run(name, corpus, topics, qrels, repeat, threads) -> dict:
    d = OUT / name
    d.mkdir(parents=True, exist_ok=True)
    cfg = config(d, name, corpus, topics, qrels, threads)
    timed(HARNESS + ["index", str(cfg)])  # index built beforehand, not timed
    cache = d / "index" / "harness-runs"
    first, again, simple, floor = [], [], [], []
    for _ in range(repeat):
        shutil.rmtree(cache, ignore_errors=True)
        first.append(timed(HARNESS + ["run", str(cfg)]))
        again.append(timed(HARNESS + ["run", str(cfg)]))
        simple.append(
            timed(
                [
                    sys.executable,
                    "-c",
                    SIMPLE_SCRIPT,
                    str(d / "index"),
                    str(topics),
                    str(d / "simple.run"),
                    "1000",
                    str(threads),
                ]
            )
        )
        floor.append(timed([sys.executable, "-c", FLOOR_SCRIPT, str(d / "index"), str(topics), "1000", str(threads)]))
    ours = next((d / "report" / "runs").glob("*.trec"))
    diff = same_runs(ours, d / "simple.run")
    r = {
        "first": median_of(first),
        "again": median_of(again),
        "simple": median_of(simple),
        "floor": median_of(floor),
        "diff": diff,
    }
    r["floor_hits"] = int(r["floor"]["out"].split()[-2])
    r["search_s"] = statistics.median(phase_seconds(x[2], "searched") for x in first)
    r["reuse_s"] = statistics.median(phase_seconds(x[2], "reused") for x in again)
    r["hits"] = sum(1 for _ in open(ours))
    return r


# ----------------------------------------------------------------------------- evaluation
def ensure_runs(size: str) -> tuple[dict, Path]:
    """:func:`make_runs` in a child process (this one must stay small, see same_runs)."""
    subprocess.run([sys.executable, __file__, "--make-data", size], check=True)
    return make_runs(size, write=False)


def make_runs(size: str, write: bool = True) -> tuple[dict, Path]:
    """The generator's run (4 decimals) and the same scores written in the other formats.
    Scores get a tiny deterministic offset (a function of the score, so ties stay ties) to
    need all 17 digits, as float64 scores written by Python tools do."""
    queries, seed = SIZES[size]
    name = f"eval{size}"
    base, qrels = OUT / f"{name}.run1", OUT / f"{name}.qrels"
    if write and not (base.exists() and qrels.exists()):
        OUT.mkdir(parents=True, exist_ok=True)
        gen = [sys.executable, str(GEN), "--name", name, "--queries", str(queries), "--depth", "1000"]
        subprocess.run(gen + ["--seed", str(seed), "--out", str(OUT)], check=True, stdout=subprocess.DEVNULL)
    paths = {"4 decimals": base}
    fmts = {
        "6 decimals": lambda v: f"{v:.6f}",
        "repr": repr,
        "scientific": lambda v: f"{v:.15e}",
    }
    for fmt, fn in fmts.items():
        p = OUT / f"{name}.{fmt.replace(' ', '')}.run"
        paths[fmt] = p
        if p.exists() or not write:
            continue
        tmp = p.with_suffix(".tmp")
        with open(base) as src, open(tmp, "w") as dst:
            while True:
                lines = src.readlines(1 << 24)
                if not lines:
                    break
                rows = [line.split() for line in lines]
                s = np.array([float(r[4]) for r in rows])
                v = s + 1e-9 * ((s * 7919.0) % 1.0) + 1e-10  # same score, same offset
                dst.write("".join(f"{r[0]} {r[1]} {r[2]} {r[3]} {fn(x)} {r[5]}\n" for r, x in zip(rows, v.tolist())))
        tmp.rename(p)
    return paths, qrels


PYTREC_SCRIPT = r"""
import json, sys, pytrec_eval
run_path, qrels_path, measures = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
qrels = {}
for line in open(qrels_path):
    q, _, d, r = line.split()
    qrels.setdefault(q, {})[d] = int(r)
run = {}
for line in open(run_path):
    q, _, d, _, s, _ = line.split()
    run.setdefault(q, {})[d] = float(s)
res = pytrec_eval.RelevanceEvaluator(qrels, {v[0] for v in measures.values()}).evaluate(run)
print(json.dumps({m: sum(v[k] for v in res.values()) / len(res) for m, (_, k) in measures.items()}))
"""

HARNESS_MEANS = r"""
import json, sys
from harness.formats.qrels import read_qrels
from harness.formats.runs import read_run
from harness.metrics import evaluate
ev = evaluate(read_run(sys.argv[1]), read_qrels(sys.argv[2]), json.loads(sys.argv[3]))
print(json.dumps(ev.means))
"""


def bench_evaluate(size, repeat) -> list:
    paths, qrels = ensure_runs(size)
    rows = []
    for fmt in FORMATS:
        run = paths[fmt]
        ours, theirs = [], []
        for _ in range(repeat):
            ours.append(timed(HARNESS + ["evaluate", str(run), str(qrels), "-m", *MEASURES]))
            theirs.append(timed([sys.executable, "-c", PYTREC_SCRIPT, str(run), str(qrels), json.dumps(PYTREC)]))
        ref = json.loads(theirs[-1][2].strip().splitlines()[-1])
        _, _, out, _ = timed([sys.executable, "-c", HARNESS_MEANS, str(run), str(qrels), json.dumps(MEASURES)])
        means = json.loads(out.strip().splitlines()[-1])
        diff = max(abs(means[m] - ref[m]) for m in MEASURES)
        if diff > 1e-12:
            raise SystemExit(f"{size} {fmt}: means differ from pytrec_eval by {diff}")
        rows.append((size, fmt, run.stat().st_size / 1e6, median_of(ours), median_of(theirs), diff))
    return rows


# ----------------------------------------------------------------------------- startup
def bench_startup(cfg: Path, repeat) -> dict:
    cmds = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import harness": [sys.executable, "-c", "import harness"],
        "import harness.cli": [sys.executable, "-c", "import harness.cli"],
        "harness --help": HARNESS + ["--help"],
        "harness validate": HARNESS + ["validate", str(cfg)],
    }
    res = {k: median_of([timed(c) for _ in range(max(repeat, 5))]) for k, c in cmds.items()}
    for k in ("harness --help", "harness validate"):  # the JVM never starts
        probe = [
            sys.executable,
            "-c",
            "import sys, runpy; sys.argv = ['harness'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('harness', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print('JVM' if 'jnius' in sys.modules else 'no JVM', file=sys.stderr)",
            *cmds[k][3:],
        ]
        res[k]["jvm"] = timed(probe)[2].strip().splitlines()[-1]
    return res


# ----------------------------------------------------------------------------- main
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="1M,10M")
    ap.add_argument("--parts", default="startup,run,evaluate")
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--topics", type=int, default=2_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--explorer-depth", type=int, help="report.explorer_depth of the `harness run` configs (0: no topic explorer)"
    )
    ap.add_argument("--make-data", help=argparse.SUPPRESS)
    args = ap.parse_args()
    global EXPLORER
    EXPLORER = args.explorer_depth
    if args.make_data:
        make_runs(args.make_data)
        return 0
    parts = args.parts.split(",")
    OUT.mkdir(parents=True, exist_ok=True)
    print(
        f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f} repeat={args.repeat} threads={args.threads} "
        f"explorer_depth={'default' if EXPLORER is None else EXPLORER}"
    )
    ctopics, cqrels = cranfield_x10(OUT / "cranfield-x10")
    cfg = config(OUT / "cranfield-x10", "cranfield-x10", CRANFIELD / "corpus.jsonl", ctopics, cqrels, args.threads)

    if "startup" in parts:
        res = bench_startup(cfg, args.repeat)
        print("\n| startup (fresh process) | median s | CPU s | peak MB | JVM |")
        print("|---|---:|---:|---:|---|")
        for k, r in res.items():
            print(f"| `{k}` | {r['seconds']:.3f} | {r['cpu']:.3f} | {r['rss_mb']:.0f} | {r.get('jvm', '')} |")

    if "run" in parts:
        from bench_search import synth

        scorpus, stopics = synth(HERE / "out", args.docs, args.topics)
        data = [
            ("cranfield-x10", CRANFIELD / "corpus.jsonl", ctopics, cqrels),
            (f"synthetic-{args.docs}", scorpus, stopics, None),
        ]
        print(
            "\n| corpus (depth 1000, BM25) | hits | `harness run` s (CPU s) | SimpleSearcher script s (CPU s) "
            "| Simple / harness: wall (CPU) | floor s (CPU s) | harness / floor: wall (CPU) "
            "| re-run s (CPU s), all cached | run phase: searched s / reused s | peak MB harness / Simple / floor |"
        )
        print("|---|---:|---:|---:|---|---:|---|---:|---|---|")
        for name, corpus, topics, qrels in data:
            r = bench_run(name, corpus, topics, qrels, args.repeat, args.threads)
            f, a, s, fl = r["first"], r["again"], r["simple"], r["floor"]
            if r["floor_hits"] != r["hits"]:
                raise SystemExit(f"the floor found {r['floor_hits']} hits, the harness {r['hits']}")
            print(
                f"| {name} | {r['hits']:,} | {f['seconds']:.2f} ({f['cpu']:.2f}) | {s['seconds']:.2f} ({s['cpu']:.2f}) "
                f"| {s['seconds'] / f['seconds']:.1f}x ({s['cpu'] / f['cpu']:.1f}x) "
                f"| {fl['seconds']:.2f} ({fl['cpu']:.2f}) | {f['seconds'] / fl['seconds']:.2f} ({f['cpu'] / fl['cpu']:.2f}) "
                f"| {a['seconds']:.2f} ({a['cpu']:.2f}) "
                f"| {r['search_s']:.2f} / {r['reuse_s']:.3f} ({r['reuse_s'] / r['search_s']:.1%}) "
                f"| {f['rss_mb']:.0f} / {s['rss_mb']:.0f} / {fl['rss_mb']:.0f} |",
                flush=True,
            )
            print(
                f"<!-- {name}: harness {f['all']}, re-run {a['all']}, simple {s['all']}, floor {fl['all']}; "
                f"max score diff {r['diff']:.1e} -->"
            )

    if "evaluate" in parts:
        print(
            "\n| run lines | score format | MB | `harness evaluate` s (CPU s) | pytrec_eval s (CPU s) "
            "| time ratio: wall (CPU) | peak MB harness / pytrec_eval | memory ratio | max mean diff |"
        )
        print("|---|---|---:|---:|---:|---|---|---:|---:|")
        for size in args.sizes.split(","):
            for size_, fmt, mb, o, t, diff in bench_evaluate(size, args.repeat):
                print(
                    f"| {size_} | {fmt} | {mb:.0f} | {o['seconds']:.2f} ({o['cpu']:.2f}) | {t['seconds']:.2f} "
                    f"({t['cpu']:.2f}) | {o['seconds'] / t['seconds']:.3f} ({o['cpu'] / t['cpu']:.3f}) "
                    f"| {o['rss_mb']:.0f} / {t['rss_mb']:.0f} | "
                    f"{o['rss_mb'] / t['rss_mb']:.3f} | {diff:.1e} |",
                    flush=True,
                )
    print(f"\nload at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
