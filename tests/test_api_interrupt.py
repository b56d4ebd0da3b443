"""The Python API interrupted as Jupyter interrupts a cell: SIGINT to this process while
`harness.run` runs (here the run verb it calls, whose progress events pick the phase), raising
KeyboardInterrupt in the main thread. Afterwards: no temp folder, temp file or lock left, nothing
half-written in the run cache or the report, and the next call in the same process (the same
JVM) works and gives the clean run's files."""

from __future__ import annotations

import json
import os
import signal

import pytest

from harness.events import Compared, IndexBuild, RunReady

from .conftest import CRANFIELD
from .test_faults import hidden_leftovers
from .test_safety import snapshot


def config(tmp):
    from harness.verbs import run as verb

    (tmp / "c.yaml").write_text(
        "name: cran\n"
        f"collection: {{path: {CRANFIELD / 'corpus.jsonl'}, format: jsonl}}\n"
        "index: {path: index}\n"
        f"topics: {{path: {CRANFIELD / 'topics.tsv'}, format: tsv}}\n"
        f"qrels: {CRANFIELD / 'qrels.txt'}\n"
        "runs:\n  - bm25: {}\n  - dirichlet: {mu: [500, 1000, 2000]}\n  - jm: {lambda: 0.5}\n"
        "measures: [AP, nDCG@10]\n"
        "compare: {baseline: bm25, measures: [AP], test: t}\n"
        "output: out\n"
    )
    return verb.load(str(tmp / "c.yaml"))


def cache_entry(p):
    """A run cache file's content: a text's bytes; a binary copy's hits and metadata without the
    stamp of its text (size and mtime) and the times of its search (each query's nanoseconds),
    which differ from one run to the next: only which queries were timed is compared."""
    if p.suffix != ".parquet":
        return p.read_bytes()
    import pyarrow.parquet as pq

    table = pq.read_table(p)
    meta = json.loads(table.schema.metadata[b"harness"])
    assert meta.pop("text")[0] == p.with_suffix(".trec").stat().st_size  # the text it was written with
    if "latency" in meta:  # a searched run's times are kept: one per query
        meta["latency"] = len(meta["latency"]["nanos"])
    return table.replace_schema_metadata(None).to_pydict(), meta


def results(tmp) -> dict:
    """The report's files that do not hold a time, and the run cache."""
    out = {}
    for name in ("summary.csv", "per_topic.csv", "comparisons.csv"):
        out[name] = (tmp / "out" / name).read_bytes()
    for p in sorted((tmp / "out" / "runs").glob("*.trec")):
        out[f"runs/{p.name}"] = p.read_bytes()
    for p in sorted((tmp / "index" / "harness-runs").glob("*")):
        out[f"cache/{p.name}"] = cache_entry(p)
    return out


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    from harness.verbs import run as verb

    tmp = tmp_path_factory.mktemp("clean")
    verb.run(config(tmp))
    return results(tmp)


@pytest.mark.java
@pytest.mark.parametrize("phase", [IndexBuild, RunReady, Compared], ids=["mid-index", "mid-search", "mid-report"])
def test_interrupted_run_leaves_nothing_and_the_next_call_equals_a_clean_run(tmp_path, clean, phase):
    from harness.verbs import run as verb

    cfg = config(tmp_path)
    sent = []

    def on(event):
        if isinstance(event, phase) and not sent:
            sent.append(event)
            os.kill(os.getpid(), signal.SIGINT)  # what Jupyter's "interrupt the kernel" does

    with pytest.raises(KeyboardInterrupt):
        verb.run(cfg, on=on)
    assert sent
    assert hidden_leftovers(tmp_path) == []
    assert not (tmp_path / "out").exists()  # no report that looks complete
    cache = tmp_path / "index" / "harness-runs"
    left = {f"cache/{p.name}": cache_entry(p) for p in sorted(cache.glob("*"))} if cache.is_dir() else {}
    assert all(clean[k] == v for k, v in left.items())  # what was cached is complete
    before = snapshot(tmp_path)
    verb.run(cfg)
    assert results(tmp_path) == clean
    assert hidden_leftovers(tmp_path) == []
    verb.run(cfg)  # and once more: everything reused, nothing changed
    assert results(tmp_path) == clean and before.keys() <= snapshot(tmp_path).keys()
