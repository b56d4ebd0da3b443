"""Executors: where an experiment's index is built and its runs are searched.

``local`` does both in this process (one JVM, ``index.threads`` threads); ``dask`` does them on
Dask workers (a running scheduler, or a LocalCluster started and stopped here). Both give the
same index statistics and the same runs, bit for bit, so run files, metrics and the run cache do
not depend on the executor: the driver writes the runs, evaluates and compares them.

What an executor offers is the :class:`Executor` protocol: ``build`` (the index builder
:func:`harness.engine.index.ensure_index` calls, as :func:`harness.engine.index.build_here` is
for this process), ``search_runs`` yielding each run in order with its times, ``describe()``
and ``close()``. Dask is imported only when a Dask executor starts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from harness.config import Execution
from harness.engine.corpus import Corpus
from harness.engine.index import Built, IndexInfo, IndexOptions
from harness.engine.latency import SearchTimes
from harness.events import Emit, ignore
from harness.experiment.executors.dask import DaskExecutor
from harness.experiment.executors.local import LocalExecutor
from harness.formats.run import Run
from harness.specs.similarity import Similarity

__all__ = ["Executor", "open_executor"]


class Executor(Protocol):
    """What an executor does: build an index, search runs on it, say where it runs, let go."""

    def build(self, corpus: Corpus, options: IndexOptions, work: Path, threads: int) -> Built:
        """The index of ``corpus`` built in the folder ``work`` (ensure_index then moves it into place)."""
        ...

    def search_runs(
        self,
        index: IndexInfo,
        sims: Sequence[Similarity],
        topics: list[tuple[str, Any]],
        depth: int,
        threads: int,
    ) -> Iterator[tuple[Similarity, Run, float, SearchTimes]]:
        """``(similarity, run, seconds, times)`` per run in the order of ``sims``: ``run`` a
        columnar :class:`~harness.formats.run.Run` of the topics that returned something (as
        :meth:`harness.engine.search.Searcher.search_run` makes it; ``topics`` are ``(qid,
        text)``, an impact topic's ``(qid, weights)``); ``seconds`` the driver's wall time for
        it locally, the workers' summed under Dask; ``times`` the searcher's own measurement,
        :class:`harness.engine.latency.SearchTimes`."""
        ...

    def describe(self) -> str:
        """Where the work runs, as the manifest and the progress lines say it."""
        ...

    def close(self) -> None:
        """Let go of what the executor started (a LocalCluster, a client); idempotent."""
        ...


def open_executor(execution: Execution, on: Emit = ignore) -> Executor:
    """The executor for an `execution:` setting; it connects (or starts a cluster) on first use."""
    if execution.engine == "dask":
        return DaskExecutor(execution, on)
    return LocalExecutor(on)
