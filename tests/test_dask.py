"""Execution on Dask: a sweep and a sharded index build on a 2-worker LocalCluster give the
local path's run files byte for byte, the same metrics and the same p-values; the run cache is
shared both ways; a worker killed mid-sweep changes nothing; an unreachable scheduler is exit 3
after execution.timeout; a worker that cannot see the index says which worker and which path.

The oracle is the local path (itself checked against Anserini's SimpleSearcher and plain Lucene
in test_search.py and against trec_eval in test_pipeline.py). One cluster serves the module."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from harness.config import Execution, load_config
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions
from harness.engine.manifest import open_manifest
from harness.engine.shards import split_corpus
from harness.errors import ConfigError, DataError, EngineError
from harness.events import ClusterReady, RunReady, ShardsBuild
from harness.experiment.execute import run_experiment
from harness.specs.similarity import Similarity
from harness.verbs import run as verbs_run

from .conftest import REPO, write_full_report
from .test_cli import demo_copy, harness


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=0,
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": ":0"},
        ) as c,
        Client(c) as client,
    ):
        yield c, client


def on(cluster, **kw) -> Execution:
    return Execution(engine="dask", scheduler=cluster[0].scheduler_address, **kw)


def runs_of(out):
    return {p.name: p.read_bytes() for p in sorted((out / "runs").glob("*.trec"))}


def experiment(cfg, out, **changes):
    cfg = dataclasses.replace(cfg, output=out, **changes)
    logs: list = []  # harness.events
    result = run_experiment(cfg, on=logs.append)
    write_full_report(result, out)
    return result, logs


# --- a sweep on Cranfield: local index + local search vs sharded index + search on workers ----------


@pytest.fixture(scope="module")
def sweeps(cluster, cranfield_index, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dask-sweep")
    cfg = load_config(REPO / "tests" / "configs" / "cranfield-sweep.yaml")
    local, _ = experiment(cfg, tmp / "local", index_path=cranfield_index.path)
    remote, logs = experiment(
        cfg, tmp / "dask", index_path=tmp / "sharded", execution=on(cluster, index_shards=2, topics_per_task=50)
    )
    return cfg, tmp, local, remote, logs


def test_sweep_on_workers_writes_the_local_run_files(sweeps):
    cfg, tmp, local, remote, logs = sweeps
    assert [e.shards for e in logs if isinstance(e, ShardsBuild)] == [2]
    assert not any(r.reused for r in remote.runs)  # searched on the workers, not read from a cache
    ours, theirs = runs_of(tmp / "dask"), runs_of(tmp / "local")
    # 7 searched runs, plus the cross-validated run assembled from them
    assert len(cfg.runs) == 7 and len(ours) == 8 and ours == theirs
    # the cached files (named by the run keys) are the same files
    assert [r.path.name for r in remote.runs] == [r.path.name for r in local.runs]


def test_search_times_on_workers_say_what_they_sum(sweeps):
    """Each query timed on the worker that searched it (harness.engine.latency), every query in
    topic order: 225 topics in tasks of 50 are 5 batches, each searched on one thread; each query's
    time lies inside its task's wall, so their sum is at most the walls' sum (qps: one thread's)."""
    cfg, tmp, _, remote, _ = sweeps
    runs = {e["spec"]: e for e in json.loads((tmp / "dask" / "manifest.json").read_text())["runs"]}
    searched = {str(sim) for sim in cfg.runs}
    for r in (r for r in remote.runs if r.name in searched):
        t = r.latency
        assert (len(t.nanos), t.batches, t.threads) == (225, 5, 1) and (t.nanos > 0).all()
        assert t.nanos.sum() <= t.wall
        f = runs[r.name]["latency"]
        assert (f["queries"], f["threads"], f["batches"]) == (225, 1, 5) and f["qps"] == round(225 / (t.wall / 1e9), 2)
    (tuned,) = [r for r in remote.runs if r.name not in searched]
    assert runs[tuned.name]["latency"] is None  # assembled from the folds' choices, not searched


def test_sharded_index_has_the_single_builds_statistics(sweeps, cranfield_index):
    _, tmp, local, remote, _ = sweeps
    merged, single = open_manifest(tmp / "sharded"), cranfield_index.manifest
    assert merged["shards"] == 2 and "shards" not in single
    assert merged["fingerprint"] == single["fingerprint"] == remote.index.fingerprint
    assert merged["stats"] == single["stats"] and merged["stats"]["documents"] == 1398
    assert merged["counters"] == single["counters"]


def test_same_metrics_and_p_values(sweeps):
    _, _, local, remote, _ = sweeps
    for r in local.runs:
        assert remote.evaluations[r.name].per_topic == local.evaluations[r.name].per_topic
        assert remote.evaluations[r.name].means == local.evaluations[r.name].means
    assert len(remote.comparisons.rows) == len(local.comparisons.rows) == 21  # 7 runs vs the baseline, 3 measures
    assert [(c.p, c.p_corrected) for c in remote.comparisons.rows] == [
        (c.p, c.p_corrected) for c in local.comparisons.rows
    ]
    assert repr(remote.comparisons) == repr(local.comparisons)  # every field, tuning included


def test_run_cache_is_shared_both_ways(sweeps, cranfield_index):
    cfg, tmp, _, _, _ = sweeps
    # a local re-run on the index the workers built reuses what they searched
    again, _ = experiment(cfg, tmp / "local-again", index_path=tmp / "sharded")
    assert all(r.reused for r in again.runs) and runs_of(tmp / "local-again") == runs_of(tmp / "dask")
    # reused, a run shows the figures of the search that made it: the workers' 5 batches
    remote = {e["name"]: e["latency"] for e in json.loads((tmp / "dask" / "manifest.json").read_text())["runs"]}
    local = {e["name"]: e["latency"] for e in json.loads((tmp / "local-again" / "manifest.json").read_text())["runs"]}
    assert local == remote and all(f["batches"] == 5 for f in local.values() if f is not None)
    # a Dask run over the local cache needs no cluster at all (this scheduler does not exist)
    cached, logs = experiment(
        cfg,
        tmp / "dask-cached",
        index_path=cranfield_index.path,
        execution=Execution(engine="dask", scheduler="tcp://127.0.0.1:9", timeout=1),
    )
    assert all(r.reused for r in cached.runs) and not any(isinstance(e, (ShardsBuild, ClusterReady)) for e in logs)


# --- the demo collection (a text folder) in three shards ------------------------------------------


def test_demo_sharded_in_three_equals_local(cluster, tmp_path):
    cfg = load_config(demo_copy(tmp_path))
    experiment(cfg, tmp_path / "local", index_path=tmp_path / "idx-local")
    result, _ = experiment(
        cfg, tmp_path / "dask", index_path=tmp_path / "idx-dask", execution=on(cluster, index_shards=3)
    )
    assert result.index.manifest["shards"] == 3
    assert open_manifest(tmp_path / "idx-dask")["stats"] == open_manifest(tmp_path / "idx-local")["stats"]
    ours = runs_of(tmp_path / "dask")
    assert len(ours) == 5 and ours == runs_of(tmp_path / "local")


# --- faults -------------------------------------------------------------------------------------


def test_worker_that_cannot_see_the_index_names_itself_and_the_path(cluster, sweeps, tmp_path):
    from harness.experiment.executors.dask.tasks import search_task

    client = cluster[1]
    sim = Similarity.parse("bm25")
    missing = tmp_path / "nowhere"
    with pytest.raises(EngineError, match=r"Dask worker tcp://\S+ on host \S+ cannot see the index .*nowhere"):
        client.submit(search_task, str(missing), "0" * 64, IndexOptions(), sim, ["wing"], 10, pure=False).result()
    other = sweeps[1] / "sharded"
    with pytest.raises(EngineError, match=r"Dask worker tcp://\S+ .* sees another index at .*sharded: fingerprint"):
        client.submit(search_task, str(other), "f" * 64, IndexOptions(), sim, ["wing"], 10, pure=False).result()


def test_a_worker_numbering_documents_differently_is_refused(cluster, sweeps):
    """The driver maps docids through one id table; a task from a worker whose table differs
    (another build of the same corpus at that path) is an error naming that worker."""
    from harness.experiment.executors.dask import DaskExecutor

    _, tmp, _, remote, _ = sweeps
    ex = DaskExecutor(on(cluster))
    try:
        ex._connect()
        table, _ = ex._id_table(remote.index)
        ex._tables[(str(remote.index.path), remote.index.fingerprint)] = (table, "another build")
        with pytest.raises(
            EngineError, match=r"Dask worker tcp://\S+ .* numbers the documents of .*sharded differently"
        ):
            list(ex.search_runs(remote.index, [Similarity.parse("bm25")], [("1", "wing"), ("2", "flow")], 10, 1))
    finally:
        ex.close()


def test_unreachable_scheduler_is_exit_3_after_execution_timeout(tmp_path):
    """Waited for execution.timeout seconds (1 here: the default's 10 were 10 s of an idle core
    in every run of the suite), then exit 3 naming the address and the wait."""
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = demo_copy(tmp_path, **{"index: {stemmer: porter, stopwords: true}": f"index: {{path: {tmp_path / 'idx'}}}"})
    t = time.monotonic()
    sets = ["--set", "execution.engine=dask", "--set", "execution.timeout=1"]
    r = harness("run", "--scheduler", f"tcp://127.0.0.1:{port}", *sets, str(cfg))
    elapsed = time.monotonic() - t
    assert r.returncode == 3, r.stderr
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port} within 1 s" in r.stderr
    assert 1 <= elapsed < 30  # a bound, not a speed: it waited, and not forever
    assert not (tmp_path / "idx").exists() and not (tmp_path / "report").exists()


def test_killed_worker_mid_sweep_changes_nothing(cluster, sweeps, cranfield_index):
    cfg, tmp, _, _, _ = sweeps
    client = cluster[1]
    cfg = dataclasses.replace(
        cfg,
        runs=tuple(Similarity.parse(s) for s in ("bm25(k1=0.6,b=0.3)", "bm25(k1=1.2,b=0.75)", "dirichlet(mu=300)"))
        + (Similarity.parse("jm(lambda=0.4)"),),
        compare=None,
        expect={},
    )
    local, _ = experiment(cfg, tmp / "kill-local", index_path=cranfield_index.path)
    before = client.run(os.getpid)
    victim = sorted(before.values())[0]
    killed = []

    def watch(event):
        if isinstance(event, RunReady) and not killed:  # the first run is back: the others are in flight
            os.kill(victim, signal.SIGKILL)
            killed.append(event)

    remote = run_experiment(
        dataclasses.replace(
            cfg, index_path=tmp / "sharded", output=tmp / "kill-dask", execution=on(cluster, topics_per_task=25)
        ),
        on=watch,
    )
    write_full_report(remote, tmp / "kill-dask")
    assert killed and not any(r.reused for r in remote.runs)
    assert runs_of(tmp / "kill-dask") == runs_of(tmp / "kill-local")
    client.wait_for_workers(2, timeout=60)  # the nanny restarted the killed worker
    assert victim not in client.run(os.getpid).values()


# --- a study: one cluster for every collection --------------------------------------------------


def test_a_study_on_workers_is_the_local_study(cluster, tmp_path, monkeypatch):
    """`execution:` applies to each collection of a study, all on one cluster (one connection):
    each collection's index built and its runs searched on the workers, the run files and the
    table across collections those of the same study run locally."""
    from harness.verbs import study as verbs_study

    from .test_study import ENTRIES, study_config

    monkeypatch.delenv("HARNESS_INDEXES", raising=False)  # each study its own indexes/
    verbs_study.run(verbs_run.load(study_config(tmp_path / "local")))
    events: list = []
    address = cluster[0].scheduler_address
    remote = verbs_run.load(study_config(tmp_path / "dask", execution={"engine": "dask", "scheduler": address}))
    out = verbs_study.run(remote, on=events.append)
    assert sum(isinstance(e, ClusterReady) for e in events) == 1
    assert [e.shards for e in events if isinstance(e, ShardsBuild)] == [2] * len(ENTRIES)  # built on the workers
    assert not out.result.failures and not any(r.reused for x in out.result.results.values() for r in x.runs)
    for name in ENTRIES:
        assert runs_of(tmp_path / "dask" / "out" / "collections" / name) == runs_of(
            tmp_path / "local" / "out" / "collections" / name
        )
    table = (tmp_path / "dask" / "out" / "collections.csv").read_bytes()
    assert table == (tmp_path / "local" / "out" / "collections.csv").read_bytes()


# --- no cluster needed -------------------------------------------------------------------------


def test_split_corpus_cuts_jsonl_at_line_boundaries(tmp_path):
    lines = [json.dumps({"id": f"d{i}", "contents": "w " * (i % 7)}) + "\n" for i in range(101)]
    f = tmp_path / "c.jsonl"
    f.write_text("".join(lines))
    shards = split_corpus(Corpus(f, "jsonl"), 4, tmp_path / "staged")
    assert len(shards) == 4
    parts = []
    for s in shards:
        (p,) = s.pieces
        with open(p.path, "rb") as fh:
            fh.seek(p.start)
            parts.append(fh.read((p.end or f.stat().st_size) - p.start))
    assert all(part.endswith(b"\n") and part.count(b"\n") >= 20 for part in parts)
    assert b"".join(parts) == f.read_bytes()


def test_split_corpus_keeps_trec_files_whole_and_html_in_one_piece(tmp_path):
    folder = tmp_path / "trec"
    folder.mkdir()
    for i in range(5):
        (folder / f"f{i}.txt").write_text(f"<DOC>\n<DOCNO>d{i}</DOCNO>\n<TEXT>x</TEXT>\n</DOC>\n" * (i + 1))
    shards = split_corpus(Corpus(folder, "trec"), 3, tmp_path / "staged")
    pieces = [p for s in shards for p in s.pieces]
    assert all(p.start == 0 and p.end is None for p in pieces)
    assert sorted(p.path for p in pieces) == sorted(str(folder / f"f{i}.txt") for i in range(5))
    assert 2 <= len(shards) <= 3
    (html,) = split_corpus(Corpus(folder, "html"), 3, tmp_path / "staged-html")
    assert html.folder == str(folder) and not html.pieces


@pytest.mark.parametrize(
    "execution, message",
    [
        ("{engine: local, workers: 2}", "execution.workers: applies to engine dask only"),
        ("{engine: dask, scheduler: 'tcp://h:8786', workers: 2}", "give either `scheduler`"),
        ("{engine: dask, scheduler: 'http://h 1'}", "must be a Dask scheduler address like tcp://host:8786"),
        ("{engine: spark}", "execution.engine: must be one of local, dask"),
        ("{engine: dask, index_shards: 0}", "execution.index_shards: must be an integer >= 1"),
    ],
)
def test_execution_is_validated(tmp_path, execution, message):
    cfg = demo_copy(tmp_path)
    cfg.write_text(cfg.read_text() + f"execution: {execution}\n")
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")) as e:
        load_config(cfg)
    assert "demo.yaml:15" in str(e.value)


def test_execution_is_read_and_the_flags_set_it_before_it_is_validated(tmp_path):
    for folder in "abc":
        (tmp_path / folder).mkdir()
    cfg = demo_copy(tmp_path / "a")
    cfg.write_text(cfg.read_text() + "execution: {engine: dask, workers: 3, topics_per_task: 7}\n")
    e = load_config(cfg).execution
    assert (e.engine, e.workers, e.scheduler, e.topics_per_task) == ("dask", 3, None, 7)
    flagged = verbs_run.load(cfg, scheduler="tcp://h:1")  # what `harness run --scheduler tcp://h:1` loads
    assert flagged.execution == dataclasses.replace(e, scheduler="tcp://h:1", workers=None)
    assert flagged.overrides == ("--scheduler tcp://h:1",)  # three keys set, named once (manifest.json)
    from_env = verbs_run.load(cfg, scheduler="tcp://h:1", scheduler_from_env=True)  # $HARNESS_SCHEDULER
    assert from_env.execution == flagged.execution and from_env.overrides == ("$HARNESS_SCHEDULER=tcp://h:1",)
    assert load_config(demo_copy(tmp_path / "b")).execution == Execution()
    assert verbs_run.load(demo_copy(tmp_path / "b"), workers=2).execution == Execution(engine="dask", workers=2)
    # The config's Dask keys under the default engine (local): refused alone, kept under a flag
    # (the flags used to apply after validation, which refused them though the flag asked for Dask).
    cfg = demo_copy(tmp_path / "c")
    cfg.write_text(cfg.read_text() + "execution: {timeout: 30, topics_per_task: 7, workers: 4}\n")
    with pytest.raises(ConfigError, match="applies to engine dask only"):
        load_config(cfg)
    e = verbs_run.load(cfg, scheduler="tcp://h:2").execution
    assert (e.engine, e.scheduler, e.workers, e.timeout, e.topics_per_task) == ("dask", "tcp://h:2", None, 30.0, 7)
    # the same setting through --set and through the Python API's overrides
    keys = {"execution.engine": "dask", "execution.scheduler": "tcp://h:2", "execution.workers": None}
    assert (
        verbs_run.load(
            cfg, sets=["execution.engine=dask", "execution.scheduler=tcp://h:2", "execution.workers="]
        ).execution
        == e
    )
    assert verbs_run.load(cfg, overrides=keys, flags=False).execution == e
    e = verbs_run.load(cfg, scheduler="tcp://h:2", workers=2).execution  # $HARNESS_SCHEDULER and --workers
    assert (e.engine, e.scheduler, e.workers, e.timeout) == ("dask", None, 2, 30.0)
    r = harness("run", "--dry-run", "--scheduler", "tcp://h:2", str(cfg))  # the command line's door
    assert r.returncode == 0 and "execution dask (scheduler tcp://h:2)" in r.stdout, r.stderr


def test_bad_flags_are_exit_2(tmp_path):
    cfg = str(demo_copy(tmp_path))
    for args in (
        ["--workers", "0"],
        ["--workers", "99999"],  # a LocalCluster of 99,999 processes, each with a JVM, was started
        ["--scheduler", "nowhere at all"],
        ["--workers", "2", "--scheduler", "tcp://h:1"],
    ):
        r = harness("run", *args, cfg)
        assert r.returncode == 2 and "usage:" in r.stderr, (args, r.stderr)


def test_the_scheduler_variable_is_named_as_itself(tmp_path):
    """$HARNESS_SCHEDULER, the --scheduler flag's default, applies when neither flag is given and
    is named as the variable: a bad address is its error (it was reported as the flag's, a flag
    never typed), and the config's execution applies when it is empty."""
    cfg = str(demo_copy(tmp_path))
    r = harness("run", "--dry-run", cfg, env={"HARNESS_SCHEDULER": "tcp://h:2"})
    assert r.returncode == 0 and "execution dask (scheduler tcp://h:2)" in r.stdout, r.stderr
    r = harness("run", "--dry-run", "--workers", "2", cfg, env={"HARNESS_SCHEDULER": "tcp://h:2"})
    assert r.returncode == 0 and "execution dask (LocalCluster, 2 workers)" in r.stdout, r.stderr
    r = harness("run", "--dry-run", cfg, env={"HARNESS_SCHEDULER": ""})
    assert r.returncode == 0 and "execution local" in r.stdout, r.stderr
    r = harness("run", "--dry-run", cfg, env={"HARNESS_SCHEDULER": "nowhere at all"})
    assert r.returncode == 2 and "$HARNESS_SCHEDULER=nowhere at all: execution.scheduler: must be" in r.stderr
    assert "--scheduler" not in r.stderr, r.stderr


def test_dry_run_names_the_execution(tmp_path):
    r = harness("run", "--dry-run", "--workers", "2", str(demo_copy(tmp_path)))
    assert r.returncode == 0 and "execution dask (LocalCluster, 2 workers)" in r.stdout


def test_errors_cross_processes_as_themselves():
    e = pickle.loads(pickle.dumps(DataError("qrels.txt", "expected 4 fields", line=3)))
    assert type(e) is DataError and str(e) == "qrels.txt:3: expected 4 fields" and e.line == 3 and e.exit_code == 2


@pytest.mark.parametrize("raised", ["java", "engine", "data"])
def test_a_workers_error_reaches_the_driver_without_javas_exception(raised):
    """A task failing on a Java exception (raised as it is, as the EngineError search raises from
    it, or as a DataError): the error Dask sends to the driver (distributed's error_message, which
    pickles the chain of causes) holds no JavaException, whose unpickling imported jnius on the
    driver and started a JVM there without the harness's options."""
    from distributed.core import error_message

    from harness.engine import lucene
    from harness.experiment.executors.dask.tasks import _on_worker

    def task():
        try:
            lucene.jclass("java.lang.Integer").parseInt("not a number")
        except Exception as e:
            assert type(e).__module__ == "jnius"
            if raised == "engine":
                raise EngineError(f"search failed: {e}") from e
            if raised == "data":
                raise DataError("topics.tsv", f"cannot analyse: {e}", line=2) from e
            raise

    with pytest.raises(EngineError if raised != "data" else DataError) as caught:
        _on_worker(task)()
    assert "NumberFormatException" in str(caught.value)
    sent = error_message(caught.value)["exception"].data
    assert b"jnius" not in sent
    received = pickle.loads(sent)
    assert type(received) is type(caught.value) and str(received) == str(caught.value)
    assert received.__context__ is None and received.__cause__ is None


def test_importing_the_harness_does_not_import_dask():
    code = textwrap.dedent("""
        import sys
        import harness.cli, harness.experiment, harness.config
        from harness.experiment.executors import open_executor
        from harness.config import Execution
        open_executor(Execution(engine="dask", workers=1)).close()  # nothing starts before it is needed
        print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_cli_workers_starts_and_stops_its_own_cluster(tmp_path):
    """`harness run --workers 2`: a LocalCluster of the harness's own, the local run's files."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    local = demo_copy(
        tmp_path / "a", **{"index: {stemmer: porter, stopwords: true}": f"index: {{path: {tmp_path / 'i1'}}}"}
    )
    remote = demo_copy(
        tmp_path / "b", **{"index: {stemmer: porter, stopwords: true}": f"index: {{path: {tmp_path / 'i2'}}}"}
    )
    r = harness("run", str(local))
    assert r.returncode == 0, r.stderr
    r = harness("run", "--workers", "2", str(remote))
    assert r.returncode == 0, r.stderr
    assert "dask: scheduler tcp://127.0.0.1:" in r.stderr and "2 worker(s)" in r.stderr
    assert open_manifest(tmp_path / "i2")["shards"] == 2
    ours = runs_of(tmp_path / "b" / "report")
    assert len(ours) == 5 and ours == runs_of(tmp_path / "a" / "report")


def test_indri_runs_do_not_depend_on_the_segment_layout(sweeps, cranfield_index, cranfield_topics):
    """indri smooths every document for every query term the index holds, also in a segment that
    lacks the term: the merged shard index (one segment per shard) gives the single build's run."""
    from harness.engine.index import IndexOptions
    from harness.engine.search import Searcher

    _, tmp, _, _, _ = sweeps
    assert len(list((tmp / "sharded").glob("*.si"))) >= 2 > len(list(Path(cranfield_index.path).glob("*.si")))
    sim = Similarity.parse("indri(mu=1000)")
    queries = [t for _, t in cranfield_topics]
    merged = Searcher(tmp / "sharded", IndexOptions()).search(queries, sim, 1000)
    single = Searcher(cranfield_index.path, IndexOptions()).search(queries, sim, 1000)
    assert sum(len(ids) for ids, _ in single) > 200_000
    for (a, sa), (b, sb) in zip(merged, single):
        assert a == b and np.array_equal(sa, sb)


def test_dense_runs_on_workers_equal_local(cluster, tmp_path):
    """examples/hybrid on the workers: the vectors index built in one piece by one worker even
    with index_shards 2 (a merged HNSW graph would be another graph), its knn run searched on the
    workers in tasks of 5 topics, the file run and the fusions: every run file equals the local run's."""
    import shutil

    for where in ("local", "dask"):
        shutil.copytree(REPO / "examples" / "hybrid", tmp_path / where / "examples" / "hybrid")
        shutil.copytree(REPO / "qrels", tmp_path / where / "qrels")
        (tmp_path / where / "indexes").mkdir()
    for hnsw in (False, True):
        configs = {}
        for where in ("local", "dask"):
            path = tmp_path / where / "examples" / "hybrid" / "hybrid.yaml"
            if hnsw:
                text = path.read_text().replace(
                    "format: vectors}\ntopics", "format: vectors}\nindex: {vectors: hnsw}\ntopics"
                )
                path.write_text(text.replace("knn: {}", "knn: {efSearch: 40}"))
            configs[where] = load_config(path)
        local, _ = experiment(configs["local"], tmp_path / "local" / "out")
        remote, logs = experiment(
            configs["dask"], tmp_path / "dask" / "out", execution=on(cluster, index_shards=2, topics_per_task=5)
        )
        assert [e.shards for e in logs if isinstance(e, ShardsBuild)] == [1]
        assert not any(r.reused for r in remote.runs if r.name == "dense")
        ours, theirs = runs_of(tmp_path / "dask" / "out"), runs_of(tmp_path / "local" / "out")
        assert sorted(ours) == ["bm25.trec", "combsum.trec", "dense.trec", "rrf.trec"] and ours == theirs
        assert remote.index.options.vectors == ("hnsw" if hnsw else "flat")


def test_impact_runs_on_workers_equal_local(cluster, tmp_path):
    """An impact collection of three files built in shards on the workers (whole files, since a
    JSON document may span lines) and merged; its runs, of query weights and of pretokenized
    text, searched on the workers in tasks of 4 topics: the local run files."""
    from .test_impact_configs import demo_weights

    w = demo_weights(tmp_path / "w")
    lines = w["docs"].read_text().splitlines(keepends=True)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"part-{i}.jsonl").write_text("".join(lines[i::3]))
    for fmt, topics in (("impact", w["jsonl"]), ("tsv", w["tsv"])):
        cfg = tmp_path / f"{fmt}.yaml"
        cfg.write_text(
            f"name: impact\ncollection: {{path: {docs}, format: impact}}\ntopics: {{path: {topics}, format: {fmt}}}\n"
            f"qrels: {REPO / 'qrels' / 'demo.txt'}\nruns: [impact]\noutput: {tmp_path / 'unused'}\n"
        )
        config = load_config(cfg)
        local, _ = experiment(config, tmp_path / fmt / "local", index_path=tmp_path / fmt / "i1")
        remote, logs = experiment(
            config,
            tmp_path / fmt / "dask",
            index_path=tmp_path / fmt / "i2",
            execution=on(cluster, index_shards=3, topics_per_task=4),
        )
        assert [e.shards > 1 for e in logs if isinstance(e, ShardsBuild)] == [True]
        assert runs_of(tmp_path / fmt / "dask") == runs_of(tmp_path / fmt / "local") != {}
        assert remote.index.options == IndexOptions(impact=True)
