"""Search times: what the Java searcher measured while it searched a run, and the figures reported.

``BatchSearcher`` times every batch it searches (harness/engine/java/BatchSearcher.java, its
``Timed``), with ``System.nanoTime``:

- **per query**, the interval on the thread that searched it, from before its query was built
  (the analysis of its text through the index's analyzer, its term weights, or its vector read)
  to after its hits were in rank order and, for text and impact runs, their scores tie-adjusted
  (Anserini's ScoreTiesAdjusterReranker). The Lucene search is inside, and with expansion (rm3,
  rocchio, bm25prf) so are the first search, the reranker and its second search. Outside: the
  time a query waited for a thread of the pool, packing the results, moving them to Python,
  making the run and writing its file;
- **per batch**, its wall time in the searcher, from before its thread pool is made to after its
  last query ended, and the pool's size (``threads``: the threads asked, at most one per query).

A run is one batch when searched locally, two when an impact run mixes texts and term weights
(each form is a batch), and one per task on Dask (``execution: dask``: each task searches its
topics on one thread of a worker). :class:`SearchTimes` holds the times of a run's batches joined:
each query's time in topic order, the walls summed, and the batches counted.

The figures (:meth:`SearchTimes.figures`, a run's ``latency`` in ``manifest.json``):

- ``queries``: the queries timed (the run's topics, those that returned nothing included);
- ``threads``: the searcher's threads per batch (on Dask 1: a task searches on one thread);
- ``qps``: ``queries`` / the batches' wall time in the searcher with that many threads (seconds,
  summed over the batches). Locally the run's throughput; on Dask the throughput of one worker
  thread (the tasks' walls summed: thread-seconds), not the cluster's, which depends on how the
  scheduler spread the tasks;
- ``mean_ms``, ``p50_ms``, ``p95_ms``, ``p99_ms``: the mean and the percentiles of the per-query
  times in milliseconds, by numpy's default method (``linear``: Hyndman and Fan's type 7);
- ``index_bytes``: the size on disk of the index searched (:func:`index_bytes`), when the run was
  searched;
- ``batches``: the batches whose walls ``qps`` sums.

A run from the cache shows the figures of the search that made it (the run cache keeps the
record, :meth:`SearchTimes.record`, beside the run); runs from files, fusions and cross-validated
runs were not searched and have none.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["SearchTimes", "index_bytes", "PERCENTILES", "FIGURES"]

PERCENTILES = (50, 95, 99)
# The keys of SearchTimes.figures, in order (the manifest's `latency`, the report's columns).
FIGURES = ("queries", "threads", "qps", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "index_bytes", "batches")


@dataclass(frozen=True, eq=False)  # eq=False: no elementwise == of nanos inside a RunResult's ==
class SearchTimes:
    """The times of a run's search (see the module's docstring): ``nanos`` per query in the
    queries' order (int64), ``wall`` the batches' wall time in nanoseconds (summed), ``threads``
    per batch, ``batches`` the batches, ``index_bytes`` the searched index's size (None: not known)."""

    nanos: np.ndarray
    wall: int
    threads: int
    batches: int = 1
    index_bytes: int | None = None

    @classmethod
    def of(cls, timed) -> SearchTimes:
        """From BatchSearcher's ``Timed`` (its per-query nanoseconds come as little-endian int64 bytes)."""
        nanos = np.frombuffer(timed.nanos().tostring(), dtype="<i8").astype(np.int64)
        return cls(nanos, int(timed.wall()), int(timed.threads()))

    @classmethod
    def none(cls, threads: int) -> SearchTimes:
        """No query searched (an empty batch: no Java call)."""
        return cls(np.zeros(0, np.int64), 0, max(1, int(threads)), 0)

    @staticmethod
    def join(parts: list[SearchTimes], order: list[list[int]] | None = None) -> SearchTimes:
        """One run's times from its batches: ``parts[k]``'s queries are the queries ``order[k]``
        (0-based positions in the run; default: one after the other), walls and batches summed,
        threads the largest of any batch."""
        n = sum(len(p.nanos) for p in parts)
        nanos = np.zeros(n, np.int64)
        start = 0
        for k, p in enumerate(parts):
            where = order[k] if order is not None else list(range(start, start + len(p.nanos)))
            nanos[where] = p.nanos
            start += len(p.nanos)
        return SearchTimes(
            nanos,
            sum(p.wall for p in parts),
            max((p.threads for p in parts), default=1),
            sum(p.batches for p in parts),
        )

    def on_index(self, path) -> SearchTimes:
        """The same times with the searched index's size (:func:`index_bytes`)."""
        return replace(self, index_bytes=index_bytes(path))

    def record(self) -> dict:
        """What the run cache keeps (JSON): every measured value, nanoseconds as integers."""
        return {
            "nanos": self.nanos.tolist(),
            "wall": self.wall,
            "threads": self.threads,
            "batches": self.batches,
            "index_bytes": self.index_bytes,
        }

    @classmethod
    def from_record(cls, record) -> SearchTimes | None:
        """A :meth:`record` read back; None when it is not one (absent: a run cached before the
        harness kept search times, or damaged)."""
        if not isinstance(record, dict):
            return None
        fields: list[Any] = [record.get(k) for k in ("nanos", "wall", "threads", "batches")]  # checked below
        nanos, wall, threads, batches = fields
        size = record.get("index_bytes")
        ints = (wall, threads, batches)
        if (
            not isinstance(nanos, list)
            or not all(type(x) is int and x >= 0 for x in nanos)
            or not all(type(x) is int and x >= 0 for x in ints)
            or not (size is None or (type(size) is int and size >= 0))
        ):
            return None
        return cls(np.array(nanos, dtype=np.int64), wall, threads, batches, size)

    def figures(self) -> dict | None:
        """The manifest's ``latency`` (:data:`FIGURES`; the module's docstring says what each
        is); None for a search of no query."""
        n = len(self.nanos)
        if not n or self.wall <= 0:
            return None
        ms = self.nanos / 1e6
        p50, p95, p99 = np.percentile(ms, PERCENTILES)  # numpy's default method, "linear"
        return {
            "queries": n,
            "threads": self.threads,
            "qps": round(n / (self.wall / 1e9), 2),
            "mean_ms": round(float(ms.mean()), 4),
            "p50_ms": round(float(p50), 4),
            "p95_ms": round(float(p95), 4),
            "p99_ms": round(float(p99), 4),
            "index_bytes": self.index_bytes,
            "batches": self.batches,
        }


def index_bytes(path) -> int:
    """The size on disk of the index at ``path``: the bytes (st_size) of the files in its folder
    (Lucene's files and harness-index.json); the run cache (``harness-runs/``) and any other
    folder in it left out."""
    total = 0
    with os.scandir(Path(path)) as entries:
        for e in entries:
            if e.is_file(follow_symlinks=False):
                total += e.stat(follow_symlinks=False).st_size
    return total
