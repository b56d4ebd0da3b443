"""The Dask executor's driver: the cluster it connects to (or the LocalCluster it starts), the
tasks it submits, and the shards it joins into an index and into runs, as the rest of the harness
uses an executor.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import CancelledError
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from harness import lazy
from harness.config import Execution
from harness.engine.index import Built, IndexInfo
from harness.engine.latency import SearchTimes
from harness.engine.search import id_table, run_from_arrays
from harness.engine.shards import split_corpus
from harness.errors import EngineError, HarnessError
from harness.events import ClusterReady, Emit, ShardsBuild, ignore
from harness.formats.run import Run
from harness.specs.similarity import Similarity

if TYPE_CHECKING:  # the annotations' types; distributed itself is imported when a cluster starts
    from distributed import Client, LocalCluster
from harness.experiment.executors.dask.logs import quiet_driver, quiet_loop, quiet_workers, restore_logs
from harness.experiment.executors.dask.tasks import BUILDING, build_shard_task, ids_task, merge_task, search_task

distributed = lazy.module("distributed")

__all__ = ["DaskExecutor"]

# Tasks per worker thread, over all runs, when `topics_per_task` is not given: enough for the
# scheduler to balance uneven runs and to re-balance after a worker dies, few enough that the
# per-task overhead (a few ms, docs/deployment.md "Clusters") stays small next to a task's searching.
TASKS_PER_THREAD = 4


class DaskExecutor:
    def __init__(self, execution: Execution, on: Emit = ignore):
        self.execution = execution
        self.on = on
        self._client: Client | None = None
        self._cluster: LocalCluster | None = None
        self._tables: dict[tuple[str, str], tuple[np.ndarray, str]] = {}
        self._levels: dict[str, int] = {}

    # ------------------------------------------------------------------ the cluster
    def _connect(self) -> Client:
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
                    client.register_plugin(quiet_workers())
            except Exception as e:
                self.close()
                raise EngineError(f"cannot start a Dask LocalCluster of {n} workers: {e}") from e
        self._client = client
        quiet_loop(client)
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
        return max(1, sum(self._connect().nthreads().values()))

    def describe(self) -> str:
        return str(self.execution)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
        restore_logs(self._levels)
        self._levels = {}

    def _quiet(self) -> None:
        """Silence Dask's own log while this client is open (logs.quiet_driver); close() restores it."""
        if not self._levels:
            self._levels = quiet_driver()

    def _gather(self, futures):
        client = self._connect()
        try:
            return client.gather(futures)
        except HarnessError:
            raise
        except (CancelledError, OSError) as e:  # the scheduler went away (or cancelled our tasks)
            scheduler = client.scheduler  # None only once the client is closed
            raise EngineError(
                f"lost the Dask scheduler {scheduler.address if scheduler is not None else '?'} mid-run ({type(e).__name__}): it stopped "
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
        (work / BUILDING).touch()  # removed with `work` when the driver gives up: see tasks._unless_abandoned
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
            # removes what it wrote when it ends (tasks._unless_abandoned).
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
            fut = self._connect().submit(
                ids_task, str(index.path), index.fingerprint, index.options, key=f"ids-{_tag()}"
            )
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

    def search_runs(
        self, index: IndexInfo, sims: Sequence[Similarity], topics: list[tuple[str, Any]], depth: int, threads: int
    ) -> Iterator[tuple[Similarity, Run, float, SearchTimes]]:
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


def _tag() -> str:
    return os.urandom(4).hex()
