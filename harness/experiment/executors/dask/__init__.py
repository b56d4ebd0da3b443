"""The Dask executor: indexing and searching on Dask workers, results identical to a local run.

Work units. Searching: one task per (run setting, topic shard); each task returns three compact
arrays (hits per topic, the hits' Lucene docids, Anserini's float32 scores: 8 bytes a hit), and
the driver joins a run's shards in topic order and unpacks them exactly as the local path unpacks
its own batch, through the index's table of external ids (fetched once from a worker). Every task
also returns the digest of its worker's id table, so a worker whose index numbers the documents
differently (another build of the same corpus) cannot mix its docids into a run. Indexing: one
task per corpus shard (Anserini's IndexCollection, one thread), then one task merging the shard
indexes (Lucene addIndexes), see :mod:`harness.engine.shards`.

Workers. pyjnius starts one JVM per process and cannot restart it, so workers are processes
(a LocalCluster's are single-threaded processes). Each worker process keeps its JVM and one open
searcher per index fingerprint for its whole life (tasks.py's ``_SEARCHERS``): thousands of tasks open the
index once per worker. Before a worker first searches an index it reads the index's manifest at
the path the driver gave and checks the fingerprint, so a worker that does not see the same index
(no shared file system, another build) fails with its name and the path.

Faults. A worker that dies mid-task is restarted by its nanny (LocalCluster, ``dask worker``)
and the scheduler runs its tasks again elsewhere; tasks are pure functions of their inputs, so
the runs are the same. A scheduler that does not answer within ``execution.timeout`` seconds is
an EngineError (exit 3), as is a cluster where no worker joins within that time.

Modules: driver.py (:class:`DaskExecutor`, what the rest of the harness uses), tasks.py (what
runs on the workers), logs.py (Dask's log silenced). Dask is imported in this package only.
"""

from __future__ import annotations

from harness.experiment.executors.dask.driver import DaskExecutor

__all__ = ["DaskExecutor"]
