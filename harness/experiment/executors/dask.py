"""The Dask executor: indexing and searching on Dask workers, results identical to a local run.

Work units. Searching: one task per (run setting, topic shard); each task returns three compact
arrays (hits per topic, the hits' Lucene docids, Anserini's float32 scores: 8 bytes a hit), and
the driver joins a run's shards in topic order and unpacks them exactly as the local path unpacks
its own batch, through the index's table of external ids (fetched once from a worker). Every task
also returns the digest of its worker's id table, so a worker whose index numbers the documents
differently (another build of the same corpus) cannot mix its docids into a run. Indexing: one task per corpus shard (Anserini's IndexCollection,
one thread), then one task merging the shard indexes (Lucene addIndexes), see
:mod:`harness.engine.shards`.

Workers. pyjnius starts one JVM per process and cannot restart it, so workers are processes
(a LocalCluster's are single-threaded processes). Each worker process keeps its JVM and one open
searcher per index fingerprint for its whole life (``_SEARCHERS``): thousands of tasks open the
index once per worker. Before a worker first searches an index it reads the index's manifest at
the path the driver gave and checks the fingerprint, so a worker that does not see the same index
(no shared file system, another build) fails with its name and the path.

Faults. A worker that dies mid-task is restarted by its nanny (LocalCluster, ``dask worker``)
and the scheduler runs its tasks again elsewhere; tasks are pure functions of their inputs, so
the runs are the same. A scheduler that does not answer within ``execution.timeout`` seconds is
an EngineError (exit 3), as is a cluster where no worker joins within that time.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import os
import re
import socket
import threading
import time
from concurrent.futures import CancelledError
from pathlib import Path

import numpy as np

from harness import lazy
from harness.config import Execution
from harness.engine import lucene
from harness.engine.dense import open_searcher
from harness.engine.index import Built
from harness.engine.indexer import index_stats
from harness.engine.latency import SearchTimes
from harness.engine.manifest import MANIFEST, open_manifest
from harness.engine.search import id_table, run_from_arrays
from harness.engine.shards import build_shard, merge_indexes, split_corpus
from harness.errors import EngineError, HarnessError
from harness.events import ClusterReady, Emit, ShardsBuild, ignore
from harness.folders import remove_tree

distributed = lazy.module("distributed")

__all__ = ["DaskExecutor", "search_task", "ids_task", "build_shard_task", "merge_task"]

# Tasks per worker thread, over all runs, when `topics_per_task` is not given: enough for the
# scheduler to balance uneven runs and to re-balance after a worker dies, few enough that the
# per-task overhead (a few ms, docs/deployment.md "Clusters") stays small next to a task's searching.
TASKS_PER_THREAD = 4


class DaskExecutor:
    def __init__(self, execution: Execution, on: Emit = ignore):
        self.execution = execution
        self.on = on
        self._client = None
        self._cluster = None
        self._tables: dict[tuple[str, str], tuple[np.ndarray, str]] = {}
        self._levels: dict[str, int] = {}

    # ------------------------------------------------------------------ the cluster
    def _connect(self):
        if self._client is not None:
            return self._client
        # distributed makes its loggers when it is imported (harness.lazy imports it on this first
        # read): they must exist before _quiet sets their levels
        Client, LocalCluster = distributed.Client, distributed.LocalCluster
        self._quiet()
        ex = self.execution
        timeout = ex.timeout
        if ex.scheduler:
            try:
                client = Client(ex.scheduler, timeout=f"{timeout}s", set_as_default=False)
            except (OSError, TimeoutError) as e:
                raise EngineError(
                    f"cannot reach the Dask scheduler at {ex.scheduler} within {timeout:g} s ({e}); "
                    "is it running and reachable from here? Check execution.scheduler / --scheduler"
                ) from None
        else:
            n = ex.workers or os.cpu_count() or 1
            try:
                # memory_limit=0: the JVM sizes its own heap; Dask's memory manager would count
                # the index's memory-mapped files and pause or restart healthy workers.
                self._cluster = LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    memory_limit=0,
                    dashboard_address=None,  # no dashboard; its HTTP routes on any free port:
                    scheduler_kwargs={"dashboard_address": ":0"},
                    silence_logs=logging.ERROR,
                )
                client = Client(self._cluster, set_as_default=False)
                if os.environ.get("HARNESS_JAVA_LOG") != "1":  # not under --debug
                    client.register_plugin(_quiet_workers())
            except Exception as e:
                self.close()
                raise EngineError(f"cannot start a Dask LocalCluster of {n} workers: {e}") from e
        self._client = client
        _quiet_loop(client)
        try:
            client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            self.close()
            raise EngineError(
                f"no Dask worker joined the scheduler at {ex.scheduler} within {timeout:g} s; start workers "
                "(`dask worker ADDRESS`), or raise execution.timeout if they are still queued"
            ) from None
        info = client.scheduler_info()
        self.on(ClusterReady(str(info.get("address")), len(info["workers"]), self._threads()))
        return client

    def _threads(self) -> int:
        return max(1, sum(self._client.nthreads().values()))

    def describe(self) -> str:
        return str(self.execution)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
        for name, level in self._levels.items():
            logging.getLogger(name).setLevel(level)
        self._levels = {}

    def _quiet(self) -> None:
        """Silence Dask's own log while this client is open: a lost scheduler or a killed worker is
        one `harness: error:` paragraph, not Dask's tracebacks of its reconnection attempts on
        stderr besides (`--debug`, which sets HARNESS_JAVA_LOG=1, lets them through)."""
        if self._levels or os.environ.get("HARNESS_JAVA_LOG") == "1":
            return
        names = ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]
        # and tornado's, which logs an exception in a callback of Dask's: Ctrl-C landing in
        # distributed.utils.sync before its future exists printed "tornado.application - ERROR"
        # and a NameError's traceback above `harness: interrupted` (test_dask_faults, one run in a few)
        names.append("tornado.application")
        for name in names:
            logger = logging.getLogger(name)
            self._levels[name] = logger.level
            logger.setLevel(logging.CRITICAL + 1)

    def _gather(self, futures):
        try:
            return self._client.gather(futures)
        except HarnessError:
            raise
        except (CancelledError, OSError) as e:  # the scheduler went away (or cancelled our tasks)
            raise EngineError(
                f"lost the Dask scheduler {self._client.scheduler.address} mid-run ({type(e).__name__}): it stopped "
                "or became unreachable; the runs finished before are cached, run again once it is back"
            ) from None
        except distributed.KilledWorker as e:
            raise EngineError(
                f"Dask gave up on task {e.task!r}: the workers running it died again and again "
                f"(last {e.last_worker.address if e.last_worker else '?'}); see the workers' logs"
            ) from None

    # ------------------------------------------------------------------ indexing
    def build(self, corpus, options, work: Path, threads: int) -> Built:
        """An index builder for ensure_index: corpus shards indexed on workers, then merged."""
        client = self._connect()
        # A vectors index is built whole by one worker: Lucene merging shards rebuilds an HNSW graph
        # (and re-quantises), which then differs from the one Anserini's dense indexer builds.
        n = 1 if options.vectors else self.execution.index_shards or self._threads()
        shards = split_corpus(corpus, n, work / "staged")
        self.on(ShardsBuild(len(shards)))
        folders = [str(work / f"shard-{s.number:04d}") for s in shards]
        work.mkdir(parents=True, exist_ok=True)
        (work / BUILDING).touch()  # removed with `work` when the driver gives up: see _unless_abandoned
        futures = [
            client.submit(
                build_shard_task, corpus.anserini_class, s, f, options, key=f"index-shard-{s.number}-{_tag()}"
            )
            for s, f in zip(shards, folders)
        ]
        try:
            counters: dict[str, int] = {}
            for c in self._gather(futures):
                for k, v in c.items():
                    counters[k] = counters.get(k, 0) + v
            indexes = [str(Path(f) / "index") for f in folders]
            target = str(work / "index") if len(shards) > 1 else indexes[0]
            futures = [client.submit(merge_task, indexes, target, key=f"index-merge-{_tag()}")]
            stats, built_by = self._gather(futures)[0]
        except BaseException:
            # Interrupted or failed: the driver removes `work` next. Workers of our own LocalCluster
            # are stopped first, or a shard still being indexed re-creates its folder there (Lucene
            # makes its directory); a running task of another cluster cannot be stopped, and
            # removes what it wrote when it ends (_unless_abandoned).
            try:
                client.cancel(futures)
            finally:
                if self._cluster is not None:
                    self.close()
            raise
        if not Path(target).is_dir():
            raise EngineError(
                f"the workers built the index in {target}, which this process cannot see: the index must "
                "be on a file system the driver and every worker share, at the same path (set index.path)"
            )
        return Built(Path(target), counters, stats, built_by, len(shards))

    # ------------------------------------------------------------------ searching
    def _id_table(self, index):
        """The index's external ids in Lucene docid order, as a Run's ``S`` array, and their digest."""
        key = (str(index.path), index.fingerprint)
        if key not in self._tables:
            fut = self._client.submit(ids_task, str(index.path), index.fingerprint, index.options, key=f"ids-{_tag()}")
            blob, digest = self._gather([fut])[0]
            ids = blob.decode("utf-8", "surrogateescape").split("\n") if blob else []
            self._tables[key] = (id_table(ids), digest)
        return self._tables[key]

    def _arrays(self, index, sims, queries: list, depth: int):
        """(sim, counts, Lucene docids, scores, worker seconds, search times, id table) per run in
        `sims` order; the times are the tasks' joined in topic order (each task one batch on one
        thread: harness.engine.latency)."""
        client = self._connect()
        n = len(queries)
        if self.execution.topics_per_task:
            per = self.execution.topics_per_task
        else:
            shards_per_run = math.ceil(TASKS_PER_THREAD * self._threads() / len(sims))
            per = max(1, math.ceil(n / shards_per_run))
        bounds = [(i, min(i + per, n)) for i in range(0, n, per)] or [(0, 0)]
        tag = _tag()
        args = (str(index.path), index.fingerprint, index.options)
        futures = [
            [
                client.submit(
                    search_task,
                    *args,
                    sim,
                    queries[a:b],
                    depth,
                    key=f"search-{sim}-{a}-{tag}",
                    priority=-k,  # earlier runs first, so the driver can write them while others search
                )
                for a, b in bounds
            ]
            for k, sim in enumerate(sims)
        ]
        try:
            table, digest = self._id_table(index)
            for sim, futs in zip(sims, futures):
                parts = self._gather(futs)
                for p in parts:
                    if p[3] != digest:
                        raise EngineError(
                            f"{p[5]} numbers the documents of {index.path} differently from the other workers "
                            "(another build of the same corpus?): every worker must see one index at that path"
                        )
                counts = np.concatenate([p[0] for p in parts])
                docs = np.concatenate([p[1] for p in parts])
                scores = np.concatenate([p[2] for p in parts])
                times = SearchTimes.join([p[6] for p in parts])
                yield sim, counts, docs, scores, sum(p[4] for p in parts), times, table
        finally:
            client.cancel([f for futs in futures for f in futs])

    def search_runs(self, index, sims, topics: list[tuple[str, str]], depth: int, threads: int):
        """(sim, run, worker seconds, search times) per run in `sims` order, each a columnar
        :class:`~harness.formats.run.Run` built from the workers' arrays (no Python object per
        hit), as the local executor makes it; every task is submitted first. The times join the
        tasks': each query's time in topic order, the tasks' walls summed, one thread a task."""
        if not sims:
            return
        # a vectors index takes (qid, vector) pairs, as the local executor's DenseSearcher does
        queries = list(topics) if index.options.vectors else [text for _, text in topics]
        for sim, counts, docs, scores, seconds, times, table in self._arrays(index, sims, queries, depth):
            yield sim, run_from_arrays(topics, counts, table[docs], scores, f"<search {sim}>"), seconds, times


def _quiet_workers():
    """A worker plugin that silences Dask's log on the workers of the harness's own LocalCluster:
    they write to the harness's stderr, and `silence_logs` quiets only their nanny's logger. A
    worker's heartbeat that met the scheduler already closed (Ctrl-C or SIGTERM while the shards
    were indexed) printed "distributed.worker - ERROR" and a traceback after `harness: interrupted`."""

    class QuietWorkers(distributed.WorkerPlugin):
        name = "harness-quiet-logs"

        def setup(self, worker):
            _silence_dask_logs()

    return QuietWorkers()


def _silence_dask_logs() -> None:
    for name in ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _tag() -> str:
    return os.urandom(4).hex()


def _quiet_loop(client) -> None:
    """Drop distributed's AllExit from the client's event loop's "Task exception was never
    retrieved" log: its internal signal to stop waiting, left unretrieved when a gather is cut
    by Ctrl-C (a traceback on stderr after the one-line "interrupted")."""
    loop = getattr(client.loop, "asyncio_loop", None)
    if loop is None:
        return
    previous = loop.get_exception_handler()
    if getattr(previous, "harness", False):
        return

    def handler(loop, context):
        if type(context.get("exception")).__name__ == "AllExit":
            return
        if previous is None:
            loop.default_exception_handler(context)
        else:
            previous(loop, context)

    handler.harness = True
    loop.set_exception_handler(handler)


# ---------------------------------------------------------------------- on the workers
_SEARCHERS: dict[tuple, tuple] = {}  # (path, fingerprint, options) -> (Searcher, id digest), per process
_LOCK = threading.Lock()


def _where() -> str:
    try:
        name = distributed.get_worker().address
    except (ImportError, ValueError):
        name = f"pid {os.getpid()}"
    return f"Dask worker {name} on host {socket.gethostname()}"


_JAVA_FRAME = re.compile(r"^\s+(at\s+)?[\w$.<>/]+\((.*\.java:\d+|Unknown Source|Native Method)\)\s*$")


def _on_worker(task):
    """A task whose failures name the worker: an EngineError or an exception of Java (which
    reaches the driver as an unpicklable JavaException, or not at all) becomes an EngineError
    saying where it happened, without Java's stack frames; a Java OutOfMemoryError says how to
    give the workers' JVMs more memory. Errors in the user's data (DataError...) are left alone.

    What leaves the worker carries no chain of the exceptions it came from: Dask pickles an
    error with its __cause__ and __context__ (tblib), and a JavaException among them made the
    driver import jnius to unpickle it, which started a JVM there with none of the harness's
    options (no class path, Java's own signal handlers)."""

    @functools.wraps(task)
    def named(*args, **kwargs):
        try:
            return task(*args, **kwargs)
        except HarnessError as e:
            named_already = not isinstance(e, EngineError) or "Dask worker" in str(e)
            error = e if named_already else EngineError(_worker_message(str(e)))
        except Exception as e:
            error = EngineError(_worker_message(f"{type(e).__name__}: {e}"))
        error.__cause__ = error.__context__ = None
        error.__suppress_context__ = True
        raise error

    return named


def _worker_message(text: str) -> str:
    text = "\n".join(line for line in text.splitlines() if not _JAVA_FRAME.match(line)).strip()
    if "OutOfMemoryError" in text:
        if "HARNESS_JAVA_OPTS" not in text:
            text += "; give Java more memory with HARNESS_JAVA_OPTS=-Xmx8g"
        text += " in the environment the workers start in (it is read on the workers, where the JVMs run)"
    return f"{_where()}: {text}"


def _searcher(path: str, fingerprint: str, options):
    key = (path, fingerprint, options)
    with _LOCK:
        s = _SEARCHERS.get(key)
        if s is not None:
            return s
        manifest = open_manifest(Path(path))
        if manifest is None:
            raise EngineError(
                f"{_where()} cannot see the index {path} (no readable {MANIFEST}): workers read the index "
                "from a path they all see; put it on a shared file system mounted at the same path on every "
                "worker (index.path)"
            )
        if manifest.get("fingerprint") != fingerprint:
            raise EngineError(
                f"{_where()} sees another index at {path}: fingerprint {str(manifest.get('fingerprint'))[:12]}, "
                f"the experiment's is {fingerprint[:12]}; every worker must see the driver's index at that path"
            )
        for old in [k for k in _SEARCHERS if k[0] == path]:  # that path now holds another index
            _SEARCHERS.pop(old)[0].close()
        searcher = open_searcher(Path(path), options)  # a vectors index: its DenseSearcher
        digest = hashlib.sha256("\n".join(searcher.ids.tolist()).encode("utf-8", "surrogateescape")).hexdigest()
        s = _SEARCHERS[key] = (searcher, digest)
        return s


@_on_worker
def ids_task(path: str, fingerprint: str, options):
    """The index's external ids, '\n'-joined UTF-8 in Lucene docid order, and their digest."""
    searcher, digest = _searcher(path, fingerprint, options)
    return "\n".join(searcher.ids.tolist()).encode("utf-8", "surrogateescape"), digest


@_on_worker
def search_task(path: str, fingerprint: str, options, sim, queries: list, depth: int):
    """One (run setting, topic shard): hits per topic, Lucene docids, float32 scores, the id
    table's digest, seconds, who searched, and the searcher's times (one batch on one thread:
    harness.engine.latency). ``queries`` are texts, or for a vectors index (qid, vector as JSON)
    pairs, so that a vector of the wrong dimension is named by its topic."""
    searcher, digest = _searcher(path, fingerprint, options)
    t = time.perf_counter()
    (counts, docs, scores), times = searcher.timed_arrays(queries, sim, depth, threads=1)
    return counts, docs, scores, digest, time.perf_counter() - t, _where(), times


# In the folder where the driver has the shards built, for as long as it waits for them
BUILDING = ".harness-building"


def _unless_abandoned(task):
    """A shard task (its ``folder`` in the driver's build folder, which holds :data:`BUILDING`)
    that removes what it wrote when the driver gave up meanwhile (the marker it saw at the start
    has gone with the driver's folder: interrupted, or failed on another shard), so that a task
    no one could stop leaves no hidden folder behind. A marker never seen (a folder this worker
    does not share) changes nothing."""

    @functools.wraps(task)
    def run(collection_class, shard, folder, options):
        folder = Path(folder)
        marker = folder.parent / BUILDING
        seen = marker.exists()
        try:
            return task(collection_class, shard, str(folder), options)
        finally:
            if seen and not marker.exists():
                remove_tree(folder)
                try:
                    folder.parent.rmdir()  # the last one out
                except OSError:
                    pass

    return run


@_on_worker
@_unless_abandoned
def build_shard_task(collection_class: str, shard, folder: str, options) -> dict:
    """One corpus shard indexed into ``folder/index``: Anserini's counters."""
    missing = [p.path for p in shard.pieces if not os.path.exists(p.path)]
    if shard.folder is not None and not os.path.isdir(shard.folder):
        missing.append(shard.folder)
    if missing:
        raise EngineError(
            f"{_where()} cannot see the corpus file {missing[0]}: workers read the corpus from a path they all "
            "see (a shared file system mounted at the same path)"
        )
    try:
        return build_shard(collection_class, shard, Path(folder), options, threads=1)
    except HarnessError:
        raise
    except OSError as e:
        raise EngineError(f"{_where()} cannot write the shard index in {folder}: {e}") from None


@_on_worker
def merge_task(indexes: list[str], target: str):
    """Merge the shard indexes into `target` (nothing to merge for one shard): (stats, versions)."""
    missing = [p for p in indexes if not os.path.isdir(p)]
    if missing:
        raise EngineError(
            f"{_where()} cannot see the shard index {missing[0]} another worker built: the index folder must be "
            "on a file system every worker shares, at the same path"
        )
    if len(indexes) > 1:
        merge_indexes([Path(p) for p in indexes], Path(target))
    return index_stats(Path(target)), lucene.versions()
