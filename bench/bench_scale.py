#!/usr/bin/env python3
"""Scale benchmark: a sweep and an index build, local vs Dask, and a cost model.

In one run, on the synthetic corpus of bench_search.py (200,000 documents, 2,000 topics):

  sweep      12 settings (BM25 3 x 3 grid, Dirichlet 3 values), depth 1000, through the executors
             (harness.experiment.executors): local with `--threads` threads (one JVM), and a Dask
             LocalCluster of 1 and of 2 single-threaded worker processes, in alternating rounds
             (median of `--repeats`). Timed: every run's
             runs back in the driver as columnar Runs (searching, transfer, unpacking), not the writing
             of run files, which is the same driver code on every path. Each path's searcher /
             workers are opened and warmed (JIT, index open) before the clock starts; start-up
             is printed apart. Every run is checked identical to the local path's (digest of
             doc ids and scores) before any time is printed.
  index      ensure_index: local (IndexCollection, `--threads` threads) vs 2 shards built on the
             2 workers and merged (Lucene addIndexes); the statistics must be equal.
  cost model per-task overhead (empty search tasks), per-query cost (the workers' own task
             timings), transfer per hit (tasks returning 1M hits, gathered and made a Run), and
             what they predict for MS MARCO passage (8.8M documents, 6,980 topics, 35 settings,
             depth 1000) on 8 and 32 workers.

    .venv/bin/python bench/bench_scale.py [--docs 200000] [--topics 2000] [--threads 2]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SETTINGS = [f"bm25(k1={k1},b={b})" for k1 in (0.6, 0.9, 1.2) for b in (0.3, 0.4, 0.75)] + [
    f"dirichlet(mu={mu})" for mu in (500, 1000, 2000)
]
MSMARCO = {"docs": 8_841_823, "topics": 6_980, "settings": 35, "depth": 1000}


def digest(run) -> str:
    """Of a Run's topics, offsets, doc ids and scores: equal digests, identical run files."""
    h = hashlib.sha256("\n".join(run.topics()).encode())
    for a in (run.offsets, run.docids, run.scores):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def sweep(executor, info, sims, topics, depth, threads):
    """Wall time of the whole sweep, per-run digests, summed task seconds. Each run comes back
    as `harness run` receives it (the executors' search_runs: a columnar Run in the driver)."""
    runs, busy = {}, 0.0
    t = time.perf_counter()
    for sim, run, seconds in executor.search_runs(info, sims, topics, depth, threads):
        runs[str(sim)] = run
        busy += seconds
    wall = time.perf_counter() - t
    return wall, {name: digest(run) for name, run in runs.items()}, busy  # hashed off the clock


def _start_jvm() -> None:
    from harness.engine import lucene

    lucene.jclass("java.lang.System")


def _fmt(xs) -> str:
    return "/".join(f"{x:.1f}" for x in xs)


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--topics", type=int, default=2_000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2, help="local threads (default 2, the machine's cores)")
    ap.add_argument("--repeats", type=int, default=5, help="alternating rounds of the three sweeps (median)")
    args = ap.parse_args()

    from bench_search import synth
    from distributed import LocalCluster

    from harness.config import Execution
    from harness.engine import lucene
    from harness.engine.corpus import Corpus
    from harness.engine.index import IndexOptions, ensure_index
    from harness.engine.search import run_from_arrays
    from harness.engine.topics import read_topics
    from harness.experiment.executors.dask import DaskExecutor
    from harness.experiment.executors.dask.tasks import search_task
    from harness.experiment.executors.local import LocalExecutor
    from harness.specs.similarity import Similarity

    print(f"# bench_scale: {args.docs} documents, {args.topics} topics, depth {args.depth}, {len(SETTINGS)} settings")
    print(f"# {os.cpu_count()} cores; load average at start {load()} (a shared machine: timings are noisy)")
    corpus_path, topics_path = synth(OUT, args.docs, args.topics)
    corpus = Corpus(corpus_path, "jsonl")
    topics = read_topics(topics_path)
    queries = [t for _, t in topics]
    sims = [Similarity.parse(s) for s in SETTINGS]
    work = OUT / "scale"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    lucene.jclass("java.lang.System")  # the driver's JVM (local path) starts outside the clocks
    quiet = lambda m: None  # noqa: E731

    # ---------------------------------------------------------------- indexing
    t = time.perf_counter()
    local_idx = ensure_index(corpus, IndexOptions(), work / "local", threads=args.threads)
    index_local = time.perf_counter() - t

    def cluster(n):
        t = time.perf_counter()
        c = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            memory_limit=0,
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": ":0"},
        )
        return c, time.perf_counter() - t

    c2, start2 = cluster(2)
    ex2 = DaskExecutor(Execution(engine="dask", scheduler=c2.scheduler_address, index_shards=2), quiet)
    client2 = ex2._connect()
    client2.run(_start_jvm)  # the workers' JVMs start outside the clock, like the driver's
    t = time.perf_counter()
    dask_idx = ensure_index(corpus, IndexOptions(), work / "sharded", build=ex2.build)
    index_dask = time.perf_counter() - t
    assert dask_idx.manifest["stats"] == local_idx.manifest["stats"], "sharded index statistics differ"
    assert dask_idx.fingerprint == local_idx.fingerprint

    # ---------------------------------------------------------------- the sweep
    # Both clusters stay up and the three paths alternate for `--repeats` rounds (median), so a
    # burst of load from other users of the machine hits every path alike.
    from harness.engine.search import Searcher

    local = LocalExecutor()
    t = time.perf_counter()
    Searcher(local_idx.path, IndexOptions()).search(queries[:200], sims[0], args.depth, args.threads)  # warm-up
    open_local = time.perf_counter() - t

    def warm(executor, client):
        t = time.perf_counter()
        futs = [
            client.submit(
                search_task,
                str(dask_idx.path),
                dask_idx.fingerprint,
                IndexOptions(),
                sims[0],
                queries[:200],
                args.depth,
                workers=[w],
                pure=False,
            )
            for w in client.nthreads()
        ]
        client.gather(futs)
        executor._id_table(dask_idx)
        return time.perf_counter() - t

    c1, start1 = cluster(1)
    ex1 = DaskExecutor(Execution(engine="dask", scheduler=c1.scheduler_address), quiet)
    client1 = ex1._connect()
    warm2, warm1 = warm(ex2, client2), warm(ex1, client1)

    ref = None
    walls: dict[str, list[float]] = {"local": [], "1": [], "2": []}
    busy1 = []
    for _ in range(args.repeats):
        wall, d, _ = sweep(local, local_idx, sims, topics, args.depth, args.threads)
        walls["local"].append(wall)
        ref = ref or d
        assert d == ref
        for name, ex in (("2", ex2), ("1", ex1)):
            wall, d, busy = sweep(ex, dask_idx, sims, topics, args.depth, 1)
            bad = [s for s in SETTINGS if d[s] != ref[s]]
            assert not bad, f"runs differ from the local path's with {name} worker(s): {bad}"
            walls[name].append(wall)
            if name == "1":
                busy1.append(busy)
    wall_local, wall1, wall2 = (float(np.median(walls[k])) for k in ("local", "1", "2"))
    busy1 = float(np.median(busy1))

    # cost model, on the 2-worker cluster: per-task overhead and transfer per hit
    t = time.perf_counter()
    client2.gather(
        [
            client2.submit(
                search_task, str(dask_idx.path), dask_idx.fingerprint, IndexOptions(), sims[0], [], 10, pure=False
            )
            for _ in range(400)
        ]
    )
    per_task = (time.perf_counter() - t) / 400
    table, _ = ex2._id_table(dask_idx)
    hits = 1_000_000

    def blob(n):
        return np.full(n // 1000, 1000, "<i4"), np.arange(n, dtype="<i4") % 1000, np.ones(n, "<f4")

    t = time.perf_counter()
    counts, docs, scores = client2.submit(blob, hits, pure=False).result()
    run_from_arrays([(str(i), "") for i in range(len(counts))], counts, table[docs], scores, "<bench>")
    per_hit = (time.perf_counter() - t - per_task) / hits
    for ex, c in ((ex1, c1), (ex2, c2)):
        ex.close()
        c.close()

    # ---------------------------------------------------------------- report
    nq = len(queries) * len(sims)
    print(
        f"# all {len(SETTINGS)} runs identical to the local path's on 1 and 2 workers (doc ids and scores); "
        f"medians of {args.repeats} alternating rounds: local {_fmt(walls['local'])}, "
        f"1 worker {_fmt(walls['1'])}, 2 workers {_fmt(walls['2'])} s"
    )
    print()
    print(
        f"| sweep ({len(SETTINGS)} settings x {len(queries):,} topics, depth {args.depth}) "
        "| wall s | queries/s | vs 1 worker | efficiency |"
    )
    print("|---|---:|---:|---:|---:|")
    print(
        f"| local, {args.threads} threads (one JVM) | {wall_local:.2f} | {nq / wall_local:.0f} | {wall1 / wall_local:.2f}x | |"
    )
    print(f"| Dask, 1 worker | {wall1:.2f} | {nq / wall1:.0f} | 1.00x | 1.00 |")
    print(f"| Dask, 2 workers | {wall2:.2f} | {nq / wall2:.0f} | {wall1 / wall2:.2f}x | {wall1 / wall2 / 2:.2f} |")
    print()
    print(f"Dask 2 workers / local {args.threads} threads: {wall2 / wall_local:.2f} (time)")
    print(
        f"start-up, not in the walls: LocalCluster {start1:.1f} s (1 worker), {start2:.1f} s (2 workers); "
        f"first tasks (JVM, index open, JIT) {warm1:.1f} s / {warm2:.1f} s; local searcher open + warm-up {open_local:.1f} s"
    )
    print()
    print("| index build | wall s | documents/s |")
    print("|---|---:|---:|")
    print(f"| local, IndexCollection {args.threads} threads | {index_local:.2f} | {args.docs / index_local:.0f} |")
    print(f"| Dask, 2 shards on 2 workers + addIndexes | {index_dask:.2f} | {args.docs / index_dask:.0f} |")
    print(f"statistics equal: {dask_idx.manifest['stats']}")
    print()
    per_query = busy1 / nq
    print("cost model (measured here):")
    print(f"  per-task overhead       {per_task * 1e3:.2f} ms  (empty search tasks, 2 workers)")
    print(
        f"  per-query cost          {per_query * 1e3:.3f} ms  (one worker thread, depth {args.depth}, {args.docs} docs)"
    )
    print(f"  transfer per hit        {per_hit * 1e9:.0f} ns  (8 bytes a hit: gather + Run in the driver)")
    print(f"  index per document      {index_dask * 2 / args.docs * 1e6:.1f} us of worker time (sharded build)")
    m = MSMARCO
    # The per-query cost at MS MARCO's size: measured by bench_ladder.py's 8.8M rung when it has
    # run here (its search's thread-seconds per topic), else this corpus's scaled by the size.
    measured = ladder_per_query()
    if measured is not None:
        per_query_msmarco, basis = measured / 1e3, f"measured at 8.8M by bench_ladder.py: {measured:.2f} ms"
    else:
        per_query_msmarco = per_query * m["docs"] / args.docs
        basis = f"x {m['docs'] / args.docs:.0f} (corpus size; run bench_ladder.py --rungs 8.8M to measure it)"
    q = m["topics"] * m["settings"]
    tasks = q / 250  # 250 topics a task
    hits_total = q * m["depth"]
    print(
        f"MS MARCO passage ({m['docs']:,} docs, {m['topics']:,} topics x {m['settings']} settings, depth "
        f"{m['depth']}: {q:,} queries, {hits_total / 1e6:.0f}M hits), per-query cost {basis}:"
    )
    for w in (8, 32):
        search = q * per_query_msmarco / w
        overhead = tasks * per_task / w
        driver = hits_total * per_hit
        index = m["docs"] * index_dask * 2 / args.docs / w
        print(
            f"  {w:>2} workers: search {search / 60:.1f} min + task overhead {overhead:.1f} s, driver transfer "
            f"{driver / 60:.1f} min (serial, overlaps the search) -> ~{max(search, driver) / 60:.0f} min; "
            f"index ~{index / 60:.1f} min + merge"
        )
    print(f"# load average at end {load()}")


def ladder_per_query() -> float | None:
    """Milliseconds of one thread per topic at 8.8M passages, from bench_ladder.py's saved rung."""
    import json

    saved = OUT / f"ladder-run-{MSMARCO['docs']}" / "result.json"
    try:
        return float(json.loads(saved.read_text())["per_query_ms"])
    except (OSError, KeyError, ValueError):
        return None


if __name__ == "__main__":  # Dask's worker processes are spawned: they import this file
    main()
