#!/usr/bin/env python3
"""Dense retrieval benchmark (issue 28 part 5): the harness against Anserini's dense indexers and
against a plain Java loop running the Lucene query Anserini's dense searchers run.

In one run, on synthetic unit vectors generated deterministically here (100,000 documents of 768
dimensions and 1,000 queries by default; `--docs` for a smaller set):

  indexing   harness.engine.index.ensure_index (the vectors' checks, then Anserini's
             IndexFlatDenseVectors / IndexHnswDenseVectors in this process) against the same
             Anserini indexer from its command line in a fresh JVM (`java -cp fatjar ...`), same
             threads, M and efC
  search     harness.engine.dense.DenseSearcher.search_run (one Java call per batch:
             BatchSearcher.knn, a Run back) against bench/java/DenseLoop.java, a plain Java loop
             on a thread pool doing per query what SearchFlat/HnswDenseVectors do (Anserini's own
             searchers fetch a list of prebuilt indexes over the network): the same
             KnnFloatVectorQuery, sort and depth, each hit's stored id read. The median of
             `--repeats` batches, the two interleaved (each after a warm-up batch); same threads

DenseLoop is compiled here with the Eclipse compiler (`ecj`, Debian package ecj; see
scripts/build_java.py for why not javac).

    .venv/bin/python bench/bench_dense.py [--docs 100000] [--dim 768] [--queries 1000] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def unit_vectors(rng, n: int, dim: int) -> np.ndarray:
    """Rows of unit length, rounded to 6 decimals (the numbers both tools read from the file)."""
    v = rng.standard_normal((n, dim)).astype(np.float64)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return np.round(v, 6)


def write_docs(path: Path, vectors: np.ndarray) -> None:
    fmt = "%.6f," * vectors.shape[1]
    with open(path, "w") as out:
        for i, row in enumerate(vectors):
            out.write(f'{{"docid": "d{i}", "vector": [{(fmt % tuple(row))[:-1]}]}}\n')


def compile_loop(work: Path, jar: Path) -> Path:
    ecj = shutil.which("ecj")
    if not ecj:
        sys.exit("bench_dense: the reference loop needs the Eclipse compiler: apt-get install ecj")
    classes = work / "classes"
    src = REPO / "bench" / "java" / "DenseLoop.java"
    subprocess.run([ecj, "-17", "-proc:none", "-nowarn", "-d", str(classes), "-cp", str(jar), str(src)], check=True)
    return classes


def anserini_index(java: str, jar: Path, indexer: str, docs: Path, target: Path, args) -> float:
    cmd = [java, "-cp", str(jar), f"io.anserini.index.{indexer}", "-collection", "JsonDenseVectorCollection"]
    cmd += ["-input", str(docs), "-index", str(target), "-generator", "DenseVectorDocumentGenerator"]
    cmd += ["-threads", str(args.threads)]
    if indexer == "IndexHnswDenseVectors":
        cmd += ["-M", str(args.M), "-efC", str(args.efC)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--efSearch", type=int, default=100)
    ap.add_argument("--M", type=int, default=16)
    ap.add_argument("--efC", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--indexes", default="flat,hnsw")
    args = ap.parse_args()

    from harness.engine import lucene
    from harness.engine.corpus import Corpus
    from harness.engine.index import IndexOptions, ensure_index
    from harness.engine.searchers import open_searcher
    from harness.engine.vectors import vector_text
    from harness.specs.similarity import Similarity

    jar = lucene.anserini_jar()
    java = str(lucene.java_home()[0] / "bin" / "java")
    work = Path(tempfile.mkdtemp(prefix="bench-dense-"))
    try:
        rng = np.random.default_rng(42)
        t0 = time.perf_counter()
        docs = unit_vectors(rng, args.docs, args.dim)
        queries = unit_vectors(rng, args.queries, args.dim)
        (work / "docs").mkdir()
        write_docs(work / "docs" / "vectors.jsonl", docs)
        del docs
        topics = [(f"q{i}", vector_text(q.tolist())) for i, q in enumerate(queries)]
        (work / "queries.f32").write_bytes(queries.astype("<f4").tobytes())
        loop = compile_loop(work, jar)
        print(
            f"# {args.docs:,} x {args.dim} document vectors, {args.queries:,} queries, {args.threads} threads, "
            f"depth {args.depth}, HNSW M={args.M} efC={args.efC} efSearch={args.efSearch} "
            f"(data written in {time.perf_counter() - t0:.1f} s)"
        )
        print("| index | step | harness | reference | ratio |")
        print("|---|---|---:|---:|---:|")
        for which in args.indexes.split(","):
            graph = {"M": args.M, "efC": args.efC} if which == "hnsw" else {}
            options = IndexOptions(vectors=which, **graph)
            # the data file was just written (and the previous step wrote an index): its dirty
            # pages would be flushed during whichever build runs first, so flush them before each
            os.sync()
            t0 = time.perf_counter()
            info = ensure_index(Corpus(work / "docs" / "vectors.jsonl", "vectors"), options, work / f"ours-{which}",
                                threads=args.threads)  # fmt: skip
            ours = time.perf_counter() - t0
            os.sync()
            theirs = anserini_index(java, jar, options.indexer, work / "docs", work / f"anserini-{which}", args)
            reference = open_searcher(work / f"anserini-{which}", options)
            assert reference.max_doc == info.manifest["counters"]["indexed"] == args.docs, "an index is incomplete"
            reference.close()
            print(f"| {which} | indexing (s) | {ours:.1f} | {theirs:.1f} ({options.indexer}) | {theirs / ours:.2f}x |")

            sim = Similarity.parse(f"knn(efSearch={args.efSearch})")
            searcher = open_searcher(info.path, info.options)
            k = args.efSearch if which == "hnsw" else min(searcher.max_doc, max(1000, args.depth))  # as DenseSearcher
            cmd = [java, "-cp", f"{jar}:{loop}", "DenseLoop", str(info.path), str(work / "queries.f32")]
            cmd += [str(args.dim), str(k), str(args.depth), str(args.threads), "1"]
            ours, ref = [], []
            try:
                searcher.search_run(topics, sim, args.depth, threads=args.threads)  # warm-up
                for _ in range(args.repeats):  # interleaved: a busy machine slows both alike
                    t0 = time.perf_counter()
                    run = searcher.search_run(topics, sim, args.depth, threads=args.threads)
                    ours.append(time.perf_counter() - t0)
                    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()
                    ref.append(float(out[0]))  # DenseLoop's own timing: a warm-up batch, then one timed
                    assert int(out[1]) == len(run.docids), (out, len(run.docids))
            finally:
                searcher.close()
            q, a, b = args.queries, float(np.median(ours)), float(np.median(ref))
            print(f"| {which} | search (queries/s) | {q / a:,.0f} | {q / b:,.0f} (Java loop) | {b / a:.2f}x |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
