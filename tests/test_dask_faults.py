"""Dask faults met by a real `harness run --scheduler`, against a scheduler and workers in
processes of their own (so that the test can kill them): the scheduler going away mid-sweep, the
client interrupted mid-sweep, a worker whose JVM runs out of memory. Each ends in its documented
exit code with one `harness: error:` paragraph (no traceback, Dask's or Java's), no half-written
run in the cache, no temp folder or lock left, and a re-run whose run files equal a clean run's.

The oracle is a local run of the same config (test_dask.py shows the two paths give the same
files). Waits on subprocesses are bounded; nothing here is timed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import CRANFIELD, REPO
from .test_faults import hidden_leftovers, topic_copies
from .test_kills import wait_for

PY = sys.executable
DASK = str(Path(sys.executable).with_name("dask"))
DEADLINE = 300  # seconds: a bound on every wait, never an assertion on speed
COPIES = 10  # Cranfield's 225 topics, 10 times over: searching lasts long enough to be cut
pytestmark = pytest.mark.usefixtures("sparse_only_processes")  # conftest: BM25, Dirichlet, JM only


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A `dask scheduler` and `dask worker` processes, started and stopped by their pids."""

    def __init__(self, tmp: Path, workers: int = 2, env: dict | None = None, hide: Path | None = None):
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
        log = (tmp / "scheduler.log").open("w")
        self.scheduler = subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", self.address.rsplit(":", 1)[1], "--no-dashboard"],
            stdout=log,
            stderr=log,
            env=self.env,
        )
        wlog = (tmp / "workers.log").open("w")
        command = [DASK, "worker", self.address, "--nthreads", "1", "--nworkers", str(workers), "--memory-limit", "0"]
        command += ["--no-dashboard", "--death-timeout", "30"]
        if hide is not None:  # the workers see an empty folder at `hide`: another machine's file system
            unshare = ["unshare", "-m", "--propagation", "private"] if os.getuid() == 0 else ["unshare", "-rm"]
            command = [*unshare, "sh", "-c", f'mount -t tmpfs none "{hide}" && exec "$@"', "sh", *command]
        self.workers = subprocess.Popen(
            command,
            stdout=wlog,
            stderr=wlog,
            env=self.env,
            start_new_session=True,  # its nannies and workers: stopped together by this group's id
        )
        from distributed import Client

        with Client(self.address, timeout="60s") as c:
            c.wait_for_workers(workers, timeout=DEADLINE)

    def stop(self) -> None:
        for p in (self.workers, self.scheduler):
            if p.poll() is None:
                if p is self.workers:
                    os.killpg(p.pid, signal.SIGKILL)
                else:
                    p.kill()
            p.wait(timeout=DEADLINE)


# Searching is what lasts long enough to be cut: at depth 100 the sweep after the first run still
# takes most of what it takes at 1000 (7.5 s against 10.9 s here), while the runs written, cached,
# evaluated and reported are a tenth (a clean run 8.9 s, not 14.6). A worker's JVM with -Xmx12m
# runs out of memory on a task of 2,250 topics at depth 1000 only (at 100 it needs 8-12 MB).
DEPTH = 100


RUNS = "runs:\n  - bm25: {k1: 0.9, b: 0.4}\n  - dirichlet: {mu: [500, 1000]}\n  - jm: {lambda: 0.5}\n"


def project(tmp: Path, index, depth: int = DEPTH, runs: str = RUNS) -> Path:
    """A Cranfield project whose index is built (a copy of the session's) and whose run cache is empty."""
    proj = tmp / "proj"
    (proj / "configs").mkdir(parents=True)
    (proj / "indexes").mkdir()
    shutil.copytree(index.path, proj / "indexes" / "cran", ignore=shutil.ignore_patterns("harness-runs"))
    topic_copies(proj, COPIES)  # topics.tsv, qrels.txt
    cfg = proj / "configs" / "cran.yaml"
    cfg.write_text(
        "name: cran\n"
        f"collection: {{path: {CRANFIELD / 'corpus.jsonl'}, format: jsonl}}\n"
        "index: {path: ../indexes/cran}\n"
        "topics: {path: ../topics.tsv, format: tsv}\n"
        "qrels: ../qrels.txt\n"
        f"{runs}"
        "measures: [AP, nDCG@10]\n"
        "output: ../reports/cran\n"
        f"depth: {depth}\n"
    )
    return cfg


def run(cfg: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PY, "-m", "harness", "run", *args, str(cfg)], cwd=REPO, capture_output=True, text=True, timeout=900
    )


def start(cfg: Path, log: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [PY, "-m", "harness", "run", *args, str(cfg)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def run_files(cfg: Path) -> dict[str, bytes]:
    runs = cfg.parent.parent / "reports" / "cran" / "runs"
    return {p.name: p.read_bytes() for p in sorted(runs.glob("*.trec"))}


def cache(cfg: Path) -> dict[str, bytes]:
    folder = cfg.parent.parent / "indexes" / "cran" / "harness-runs"
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.trec"))} if folder.is_dir() else {}


def clean_run(tmp: Path, index, depth: int = DEPTH, runs: str = RUNS):
    """The config run locally from an empty cache: its run files and cache files. Run in this
    process (the Python API's door to the same run verb; test_dask.py and the doors' tests show
    the doors agree): a `harness run` process spent 1.3 s more of CPU on it, starting Python and
    a JVM that searches with C1 alone; sparse runs are the same either way (conftest)."""
    from harness.verbs import run as verb

    cfg = project(tmp, index, depth, runs)
    verb.run(verb.load(str(cfg)))
    return run_files(cfg), cache(cfg)


@pytest.fixture(scope="module")
def clean(tmp_path_factory, cranfield_index):
    return clean_run(tmp_path_factory.mktemp("clean"), cranfield_index)


def check_rerun(cfg: Path, clean) -> None:
    """What the fault left in the cache is complete (each file equals the clean run's), and a local
    re-run ends with the clean run's files, leaving nothing hidden behind."""
    files, cached = clean
    left = cache(cfg)
    assert all(left[name] == cached[name] for name in left), "a cached run differs from the clean run's"
    r = run(cfg)
    assert r.returncode == 0, r.stderr
    assert run_files(cfg) == files and cache(cfg) == cached
    assert hidden_leftovers(cfg.parent.parent) == []


def one_paragraph(err: str) -> None:
    assert "Traceback" not in err and "never retrieved" not in err and "distributed." not in err, err
    assert not any(line.startswith("\t") for line in err.splitlines()), err  # no Java frames


def test_scheduler_gone_mid_sweep_is_exit_3_naming_it(tmp_path, cranfield_index, clean):
    cfg = project(tmp_path, cranfield_index)
    cluster = Cluster(tmp_path)
    try:
        log = tmp_path / "err.txt"
        p = start(cfg, log, "--scheduler", cluster.address)
        wait_for(log, "run bm25: searched", p)  # the first run is back, the others are in flight
        cluster.scheduler.kill()
        p.wait(timeout=DEADLINE)
    finally:
        cluster.stop()
    err = log.read_text()
    assert p.returncode == 3, err
    assert f"lost the Dask scheduler {cluster.address}" in err
    one_paragraph(err)
    assert hidden_leftovers(tmp_path) == []
    check_rerun(cfg, clean)


def test_client_interrupted_mid_sweep_is_exit_130(tmp_path, cranfield_index, clean):
    cfg = project(tmp_path, cranfield_index)
    cluster = Cluster(tmp_path)
    try:
        log = tmp_path / "err.txt"
        p = start(cfg, log, "--scheduler", cluster.address)
        wait_for(log, "run bm25: searched", p)
        p.send_signal(signal.SIGINT)
        p.wait(timeout=DEADLINE)
    finally:
        cluster.stop()
    err = log.read_text()
    assert p.returncode == 130, err
    assert "harness: interrupted (SIGINT)" in err
    one_paragraph(err)
    assert hidden_leftovers(tmp_path) == []
    check_rerun(cfg, clean)


def test_worker_out_of_memory_is_exit_3_naming_the_worker(tmp_path, cranfield_index):
    """A worker's JVM with a heap too small to search (HARNESS_JAVA_OPTS on the worker). One run:
    the first search task fails, and the clean run and the re-run it is checked against search
    2.25 million hits a run (the test with four runs: 27 s, with one: 8.6 s)."""
    one = "runs:\n  - bm25: {k1: 0.9, b: 0.4}\n"
    clean = clean_run(tmp_path / "clean", cranfield_index, depth=1000, runs=one)
    cfg = project(tmp_path, cranfield_index, depth=1000, runs=one)
    cluster = Cluster(tmp_path, workers=1, env={"HARNESS_JAVA_OPTS": "-Xmx12m"})
    try:
        r = run(cfg, "--scheduler", cluster.address)
    finally:
        cluster.stop()
    assert r.returncode == 3, r.stderr
    assert "OutOfMemoryError" in r.stderr and "Dask worker tcp://127.0.0.1:" in r.stderr
    assert "HARNESS_JAVA_OPTS=-Xmx" in r.stderr and "on the workers" in r.stderr
    one_paragraph(r.stderr)
    check_rerun(cfg, clean)


def test_worker_killed_while_indexing_a_shard_changes_nothing(tmp_path, cranfield_index, clean):
    """SIGKILL to a worker while the shards are being indexed: its nanny restarts it, the shard
    is indexed again (over what the killed one left), and the index and runs are the clean ones."""
    from distributed import Client

    cfg = project(tmp_path, cranfield_index)
    shutil.rmtree(tmp_path / "proj" / "indexes" / "cran")
    cfg.write_text(cfg.read_text() + "execution: {engine: dask, index_shards: 2}\n")
    cluster = Cluster(tmp_path)
    try:
        with Client(cluster.address, timeout="60s") as c:
            victim = sorted(c.run(os.getpid).values())[0]
        log = tmp_path / "err.txt"
        p = start(cfg, log, "--scheduler", cluster.address)
        indexes = tmp_path / "proj" / "indexes"
        deadline = time.monotonic() + DEADLINE
        while not list(indexes.glob(".cran.building-*/shard-*/index/*")):  # Lucene is writing a shard
            assert p.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.02)
        os.kill(victim, signal.SIGKILL)
        p.wait(timeout=DEADLINE)
    finally:
        cluster.stop()
    err = log.read_text()
    assert p.returncode == 0, err
    manifest = json.loads((indexes / "cran" / "harness-index.json").read_text())
    assert manifest["shards"] == 2 and manifest["stats"] == cranfield_index.manifest["stats"]
    assert manifest["counters"] == cranfield_index.manifest["counters"]
    assert run_files(cfg) == clean[0] and cache(cfg) == clean[1]
    assert hidden_leftovers(tmp_path / "proj") == []


@pytest.mark.parametrize("index", ["built", "to build"])
def test_workers_that_cannot_see_the_index_folder_are_exit_3_naming_them(tmp_path, cranfield_index, index):
    """Driver and workers disagree on the index path: the workers' `indexes/` is another file
    system (an empty one, mounted in their own mount namespace). Searching an index the driver
    has, or building one the driver then cannot see, is exit 3 naming the worker or the path;
    nothing is cached, no report written, nothing left behind."""
    cfg = project(tmp_path, cranfield_index)
    indexes = tmp_path / "proj" / "indexes"
    if index == "to build":  # two shards, read from the corpus file (a path the workers see)
        shutil.rmtree(indexes / "cran")
        cfg.write_text(cfg.read_text() + "execution: {engine: dask, index_shards: 2}\n")
    before = sorted(p.name for p in indexes.iterdir())
    cluster = Cluster(tmp_path, workers=1, hide=indexes)
    try:
        r = run(cfg, "--scheduler", cluster.address)
    finally:
        cluster.stop()
    assert r.returncode == 3, r.stderr
    one_paragraph(r.stderr)
    if index == "built":
        assert "Dask worker tcp://127.0.0.1:" in r.stderr and f"cannot see the index {indexes / 'cran'}" in r.stderr
    else:
        assert f"the workers built the index in {indexes}" in r.stderr and "which this process cannot see" in r.stderr
    assert cache(cfg) == {} and not (tmp_path / "proj" / "reports" / "cran").exists()
    assert sorted(p.name for p in indexes.iterdir()) == before and hidden_leftovers(tmp_path / "proj") == []


@pytest.mark.parametrize("phase", ["mid-index", "mid-search"])
def test_sigterm_with_its_own_cluster_stops_the_workers_and_cleans_up(tmp_path, cranfield_index, clean, phase):
    """`harness run --workers 2` stopped by SIGTERM (docker stop, Slurm): exit 143, its
    LocalCluster's processes stopped with it, no temp folder or lock left; a re-run is clean."""
    import psutil

    cfg = project(tmp_path, cranfield_index)
    indexes = tmp_path / "proj" / "indexes"
    if phase == "mid-index":
        shutil.rmtree(indexes / "cran")
    log = tmp_path / "err.txt"
    p = start(cfg, log, "--workers", "2")
    deadline = time.monotonic() + DEADLINE
    while not (
        list(indexes.glob(".cran.building-*/shard-*/index/*"))
        if phase == "mid-index"
        else "searched" in log.read_text()
    ):
        assert p.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.02)
    children = psutil.Process(p.pid).children(recursive=True)
    assert len(children) >= 2  # the workers (and their nannies)
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=DEADLINE)
    err = log.read_text()
    assert p.returncode == 143, err
    assert "harness: interrupted (SIGTERM)" in err
    one_paragraph(err)
    gone, alive = psutil.wait_procs(children, timeout=60)
    assert alive == [], f"left running: {alive}"
    assert hidden_leftovers(tmp_path) == []
    if phase == "mid-index":
        assert sorted(p.name for p in indexes.iterdir()) == []
    check_rerun(cfg, clean)


def test_the_workers_of_its_own_cluster_log_nothing():
    """The LocalCluster's workers write to the harness's stderr: Dask's log is off there (a
    heartbeat meeting the scheduler already closed by SIGTERM printed an ERROR and a traceback
    after `harness: interrupted`, test_sigterm_with_its_own_cluster... once in a few runs)."""
    import logging

    from harness.config import Execution
    from harness.experiment.executors.dask import DaskExecutor

    executor = DaskExecutor(Execution(engine="dask", workers=2))
    try:
        client = executor._connect()
        client.wait_for_workers(2, timeout=DEADLINE)
        levels = client.run(
            lambda: [
                logging.getLogger(n).isEnabledFor(logging.ERROR)
                for n in ("distributed.worker", "distributed.core", "distributed.comm")
            ]
        )
        assert levels and all(not any(v) for v in levels.values()), levels
    finally:
        executor.close()


@pytest.mark.parametrize("driver", ["gave up", "waits"])
def test_a_shard_task_of_an_abandoned_build_removes_what_it_wrote(tmp_path, driver):
    """A running task on another cluster's worker cannot be stopped: when the driver has removed
    its build folder meanwhile (interrupted), the task removes the shard folder Lucene re-created."""
    from harness.experiment.executors.dask.tasks import BUILDING, _unless_abandoned

    work = tmp_path / ".cran.building-1"
    work.mkdir()
    (work / BUILDING).touch()

    def build_shard_task(collection_class, shard, folder, options):
        if driver == "gave up":
            shutil.rmtree(work)  # the driver, interrupted, removes its folder ...
        (Path(folder) / "index").mkdir(parents=True, exist_ok=True)  # ... and Lucene makes it again
        (Path(folder) / "index" / "segments_1").write_text("")
        return {"indexed": 1}

    assert _unless_abandoned(build_shard_task)("c", None, str(work / "shard-0000"), None) == {"indexed": 1}
    if driver == "gave up":
        assert list(tmp_path.iterdir()) == []
    else:
        assert (work / "shard-0000" / "index" / "segments_1").exists()


def test_tornado_s_log_is_quiet_while_the_client_is_open():
    """Ctrl-C landing in distributed.utils.sync before its future existed made tornado log the
    callback's NameError ("tornado.application - ERROR" and a traceback) above `harness:
    interrupted` (test_client_interrupted_mid_sweep_is_exit_130, one run in a few). Off while
    the client is open, as Dask's own log; back as it was after."""
    import logging

    from harness.config import Execution
    from harness.experiment.executors.dask import DaskExecutor

    tornado = logging.getLogger("tornado.application")
    executor = DaskExecutor(Execution(engine="dask", workers=1))
    executor._quiet()
    try:
        assert not tornado.isEnabledFor(logging.ERROR)
    finally:
        executor.close()
    assert tornado.isEnabledFor(logging.ERROR)
