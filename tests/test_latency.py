"""Search times (harness.engine.latency, issue 50 item 3): each query timed in the Java searcher,
checked against an independent timer; the manifest's `latency` figures against the standard
library's; a reused run showing the figures of the search that made it; runs from files and
fusions with none; the run cache's text unchanged by the times kept beside it.

The independent timer is Python's ``time.perf_counter``, read on either side of work that is
known to lie inside, or outside, the intervals Java measures: a reranker written in Python (an
expansion's reranker runs inside a query's interval) sleeps a different time for each query and
times itself, and the whole Java call is timed from Python. Only containments are asserted (an
interval inside another is not longer), never a threshold, so a slow or busy machine cannot fail
them."""

from __future__ import annotations

import json
import statistics
import time

import numpy as np
import pytest

from harness.engine.latency import FIGURES, SearchTimes, index_bytes
from harness.experiment.cache import binary_path, load_timed_run, place_text, store_run
from harness.formats.run import Run
from harness.report.tables import latency_state

from .conftest import REPO
from .docs import section


# ------------------------------------------------------------------------------ the figures
def test_figures_are_the_standard_librarys_mean_and_percentiles():
    """mean_ms and p50/p95/p99 against statistics (its "inclusive" quantiles are numpy's default
    "linear" method, Hyndman and Fan's type 7); qps = queries / the batches' wall time."""
    nanos = np.array([3_000_000, 1_250_000, 17_500_000, 2_000_000, 950_000, 4_400_000, 60_000_000], np.int64)
    times = SearchTimes(nanos, wall=50_000_000, threads=2, batches=1, index_bytes=12345)
    f = times.figures()
    assert list(f) == list(FIGURES)
    ms = [x / 1e6 for x in nanos.tolist()]
    cuts = statistics.quantiles(ms, n=100, method="inclusive")  # cuts[k - 1]: the k-th percentile
    assert f["mean_ms"] == round(statistics.fmean(ms), 4)
    assert (f["p50_ms"], f["p95_ms"], f["p99_ms"]) == tuple(round(cuts[k - 1], 4) for k in (50, 95, 99))
    assert f["qps"] == round(7 / 0.05, 2) == 140.0
    assert (f["queries"], f["threads"], f["index_bytes"], f["batches"]) == (7, 2, 12345, 1)
    assert SearchTimes.none(2).figures() is None  # no query, no figures


def test_joined_batches_put_each_time_back_at_its_query():
    """An impact run mixing texts and term weights is two batches (the texts, then the weights),
    a Dask run one batch per task: the times come back in the run's query order, walls summed."""
    texts = SearchTimes(np.array([10, 30]), wall=40, threads=2)
    weights = SearchTimes(np.array([20, 40, 50]), wall=90, threads=2)
    joined = SearchTimes.join([texts, weights], [[0, 2], [1, 3, 4]])
    assert joined.nanos.tolist() == [10, 20, 30, 40, 50]
    assert (joined.wall, joined.threads, joined.batches) == (130, 2, 2)
    tasks = SearchTimes.join([SearchTimes(np.array([5, 6]), 11, 1), SearchTimes(np.array([7]), 7, 1)])
    assert (tasks.nanos.tolist(), tasks.wall, tasks.threads, tasks.batches) == ([5, 6, 7], 18, 1, 2)


def test_a_record_reads_back_as_itself_and_a_bad_one_as_none():
    times = SearchTimes(np.array([1, 2, 3]), 9, 2, 1, 100)
    back = SearchTimes.from_record(json.loads(json.dumps(times.record())))
    assert back.figures() == times.figures() and back.nanos.tolist() == [1, 2, 3]
    for bad in (None, [], {"nanos": [1, -2], "wall": 3, "threads": 1, "batches": 1}, {"nanos": [1]}):
        assert SearchTimes.from_record(bad) is None


def test_index_bytes_counts_the_index_files_and_not_the_run_cache(tmp_path):
    (tmp_path / "_0.cfs").write_bytes(b"x" * 1000)
    (tmp_path / "segments_1").write_bytes(b"y" * 10)
    (tmp_path / "harness-runs").mkdir()
    (tmp_path / "harness-runs" / "bm25.trec").write_bytes(b"z" * 5000)
    assert index_bytes(tmp_path) == 1010


def test_what_a_runs_latency_is_in_words():
    figures = {"queries": 1}
    assert latency_state({"reused": False, "latency": figures}) == "searched"
    assert latency_state({"reused": True, "latency": figures}) == "reused"
    assert latency_state({"reused": True, "latency": None}) == "not recorded"
    assert latency_state({"reused": False, "latency": None, "source": {"file": "x"}}) == "not searched"
    assert latency_state({"reused": True, "latency": None, "cross_validated": {}}) == "not searched"


def test_the_docs_say_what_each_figure_is():
    """docs/experiments.md, *Search times*: a line for each key of the manifest's `latency`."""
    text = section("Search times", 3)
    for key in FIGURES:
        assert f"| `{key}`" in text or f", `{key}`" in text, key


# ------------------------------------------------------------------------------ the run cache
def _run() -> Run:
    docids = np.array([b"d1", b"d2", b"d3"], dtype="S8")
    return Run(["q1", "q2"], np.array([0, 2, 3]), docids, np.array([2.0, 1.0, 5.0]), "<t>")


def test_the_cache_keeps_the_times_beside_an_unchanged_text(tmp_path):
    """The times go into the binary copy's metadata: the TREC text is byte for byte the one
    written without them, and a run read back comes with them."""
    times = SearchTimes(np.array([1_000, 2_000]), 3_000, 2, 1, 4096)
    store_run(tmp_path / "plain.trec", _run(), "bm25")
    store_run(tmp_path / "timed.trec", _run(), "bm25", times)
    assert (tmp_path / "plain.trec").read_bytes() == (tmp_path / "timed.trec").read_bytes()
    run, back = load_timed_run(tmp_path / "timed.trec")
    assert run is not None and back.figures() == times.figures() and back.nanos.tolist() == [1_000, 2_000]
    assert load_timed_run(tmp_path / "plain.trec")[1] is None  # cached without times: none
    # a text changed through a report's hard link is written again from the binary copy, times kept
    (tmp_path / "timed.trec").write_text("changed\n")
    place_text(tmp_path / "timed.trec", tmp_path / "placed.trec")
    assert (tmp_path / "placed.trec").read_bytes() == (tmp_path / "plain.trec").read_bytes()
    assert load_timed_run(tmp_path / "timed.trec")[1].figures() == times.figures()
    # a binary copy made again from the text (damaged) cannot know the times: none, not made up
    binary_path(tmp_path / "timed.trec").write_bytes(b"not parquet")
    run, back = load_timed_run(tmp_path / "timed.trec")
    assert run is not None and back is None


# ------------------------------------------------------------------------------ Java's timer
CONFIG = """\
name: {name}
collection: {{path: {repo}/corpora, format: text-folder}}
index: {{path: {tmp}/index}}
topics: {{path: {repo}/topics/demo.tsv, format: tsv}}
qrels: {repo}/qrels/demo.txt
runs:
  - {{bm25: {{k1: 0.9, b: 0.4}}, name: bm25}}
  - {{dirichlet: {{mu: 1000}}, name: dir}}
{more}measures: [AP, nDCG@10]
output: {tmp}/{name}
"""


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """The demo collection searched by two runs (report `searched`), then again with a run read
    from the first report's file and a fusion (report `again`): (first result, second result, tmp)."""
    from harness.config import load_config
    from harness.experiment.execute import run_experiment
    from harness.experiment.explore import attach
    from harness.experiment.names import with_names
    from harness.publish import write_report

    tmp = tmp_path_factory.mktemp("latency")
    results = []
    for name, more in (
        ("searched", ""),
        (
            "again",
            f"  - {{file: {tmp}/searched/runs/bm25.trec, name: copy}}\n  - {{fuse: {{runs: [bm25, dir]}}, name: fused}}\n",
        ),
    ):
        (tmp / f"{name}.yaml").write_text(CONFIG.format(name=name, repo=REPO, tmp=tmp, more=more))
        cfg = load_config(tmp / f"{name}.yaml")
        result = attach(with_names(run_experiment(cfg)))  # as write_full_report, keeping the result: runs by name
        write_report(result, cfg.output)
        results.append(result)
    return results[0], results[1], tmp


@pytest.fixture(scope="module")
def slow_reranker():
    """A class of Anserini's Reranker interface written in Python: for each query it sleeps the
    time given for the query's text and times its own call with time.perf_counter, then hands the
    hits to Anserini's ScoreTiesAdjusterReranker (a reranker returns hits Java made)."""
    from harness.engine import lucene

    adjust = lucene.jclass("io.anserini.rerank.lib.ScoreTiesAdjusterReranker")  # the JVM runs first:
    import jnius  # importing jnius before the harness set the class path would start a JVM without it

    class Slow(jnius.PythonJavaClass):
        __javainterfaces__ = ["io/anserini/rerank/Reranker"]

        def __init__(self, pause: dict):
            super().__init__()
            self.pause, self.took, self.kept = pause, {}, []

        @jnius.java_method(
            "(Lio/anserini/search/ScoredDocs;Lio/anserini/rerank/RerankerContext;)Lio/anserini/search/ScoredDocs;"
        )
        def rerank(self, docs, context):
            text = context.getQueryText()
            t = time.perf_counter()
            time.sleep(self.pause[text])
            self.took[text] = time.perf_counter() - t
            out = adjust().rerank(docs, context)
            self.kept.append(out)  # held until Java has read it
            return out

        @jnius.java_method("()Ljava/lang/String;")
        def tag(self):
            return "slow"

    return Slow


@pytest.mark.java
@pytest.mark.parametrize("threads", [1, 2])
def test_each_query_is_timed_around_its_own_work(two, slow_reranker, threads):
    """Each query's time contains its reranker's call as Python timed it (each query sleeps its
    own time, 2 to 20 ms: a batch's wall time divided among its queries would give the slowest
    less than its sleep); the queries' times add up to at most the batch's wall time on each
    thread; the batch's wall time lies inside the Java call as Python timed it."""
    from harness.engine.search import Searcher
    from harness.engine.topics import read_topics
    from harness.specs.similarity import Similarity

    first, _, _ = two
    texts = [text for _, text in read_topics(REPO / "topics" / "demo.tsv", "tsv")][:10]
    reranker = slow_reranker({t: 0.002 * (i + 1) for i, t in enumerate(texts)})
    s = Searcher(first.index.path, first.index.options)
    try:
        t = time.perf_counter()
        timed = s._java.search(texts, s._similarity(Similarity.parse("bm25")), 10, threads, False, reranker, 10)
        outer = time.perf_counter() - t
        times = SearchTimes.of(timed)
    finally:
        s.close()
    assert times.threads == threads and len(times.nanos) == len(texts) and times.batches == 1
    for text, nanos in zip(texts, times.nanos.tolist()):
        assert nanos / 1e9 >= reranker.took[text] >= reranker.pause[text]
    assert times.nanos.sum() <= times.wall * threads
    assert times.wall / 1e9 <= outer
    assert times.nanos.sum() / 1e9 >= sum(reranker.took.values())


@pytest.mark.java
def test_a_search_times_every_topic_within_its_own_call(two):
    """Through the searcher's door (no reranker): one positive time per topic, those without
    hits too, their sum at most the wall on each thread, the wall inside Python's timing."""
    from harness.engine.search import Searcher
    from harness.engine.topics import read_topics
    from harness.specs.similarity import Similarity

    first, _, _ = two
    demo = read_topics(REPO / "topics" / "demo.tsv", "tsv")
    topics = [demo[0], ("none", "qqqxzv"), demo[1]]  # the middle one matches no document
    s = Searcher(first.index.path, first.index.options)
    try:
        for spec in ("bm25", "bm25+rm3", "indri"):
            t = time.perf_counter()
            run, times = s.timed_run(topics, Similarity.parse(spec), 100, threads=2)
            outer = time.perf_counter() - t
            assert len(run.topics()) == 2 and len(times.nanos) == 3 and (times.nanos > 0).all()
            assert times.nanos.sum() <= times.wall * 2 and times.wall / 1e9 <= outer
    finally:
        s.close()


# ------------------------------------------------------------------------------ the experiment
@pytest.mark.java
def test_the_manifest_carries_each_searched_runs_latency(two):
    first, _, tmp = two
    runs = json.loads((tmp / "searched" / "manifest.json").read_text())["runs"]
    for entry, r in zip(runs, first.runs):
        f = entry["latency"]
        assert list(f) == list(FIGURES) and f == r.latency.figures()
        assert (f["queries"], f["threads"], f["batches"]) == (15, 2, 1)  # index.threads: 2, the demo's 15 topics
        assert 0 < f["p50_ms"] <= f["p95_ms"] <= f["p99_ms"] and f["mean_ms"] > 0 and f["qps"] > 0
        assert f["index_bytes"] == index_bytes(first.index.path) > 0
        assert not entry["reused"]


@pytest.mark.java
def test_a_reused_run_shows_the_search_that_made_it(two):
    """The second experiment searches nothing: its runs come from the cache with the first
    experiment's figures, every value equal, marked reused (never the time of reading them)."""
    first, again, tmp = two
    before = {e["name"]: e for e in json.loads((tmp / "searched" / "manifest.json").read_text())["runs"]}
    after = {e["name"]: e for e in json.loads((tmp / "again" / "manifest.json").read_text())["runs"]}
    for name in ("bm25", "dir"):
        assert after[name]["reused"] and after[name]["latency"] == before[name]["latency"]
        assert after[name]["seconds"] != before[name]["seconds"]  # this experiment's own: reading it
        r = next(r for r in again.runs if r.name == name)
        assert r.reused and np.array_equal(r.latency.nanos, next(x for x in first.runs if x.name == name).latency.nanos)
    summary = (tmp / "again" / "summary.md").read_text()
    table = summary.split("## Latency")[1].split("## Provenance")[0]
    f = after["bm25"]["latency"]
    assert f"| bm25 | reused | 15 | 2 | {f['qps']:.1f} | {f['mean_ms']:.2f} | {f['p50_ms']:.2f} |" in table


@pytest.mark.java
def test_runs_from_files_and_fusions_were_not_searched(two):
    _, again, tmp = two
    after = {e["name"]: e for e in json.loads((tmp / "again" / "manifest.json").read_text())["runs"]}
    for name in ("copy", "fused"):
        assert after[name]["latency"] is None and latency_state(after[name]) == "not searched"
        assert next(r for r in again.runs if r.name == name).latency is None
    rows = (tmp / "again" / "summary.md").read_text().split("## Latency")[1].splitlines()
    for name in ("copy", "fused"):
        (row,) = [r for r in rows if r.startswith(f"| {name} |")]
        assert [c.strip() for c in row.split("|")[1:-1]] == [name, "not searched"] + [""] * 8


@pytest.mark.java
def test_the_page_plots_effectiveness_against_latency(two):
    """report.html: the Latency section's table, and one dot per run with times (not the file
    run, not the fusion) at (its mean_ms, its first measure)."""
    _, again, tmp = two
    page = (tmp / "again" / "report.html").read_text()
    entries = {e["name"]: e for e in json.loads((tmp / "again" / "manifest.json").read_text())["runs"]}
    assert '<section id="latency"><h2>Latency</h2>' in page
    chart = page.split('class="chart scatter-chart"')[1].split("</svg>")[0]
    dots = chart.split('<circle class="point"')[1:]
    assert len(dots) == 2
    for dot, name in zip(dots, ("bm25", "dir")):
        assert f'data-x="{entries[name]["latency"]["mean_ms"]!r}"' in dot
        assert f'data-y="{again.evaluations[name].means["AP"]!r}"' in dot
        assert "reused: the search that cached it" in dot
