"""Executors: where an experiment's index is built and its runs are searched.

``local`` does both in this process (one JVM, ``index.threads`` threads); ``dask`` does them on
Dask workers (a running scheduler, or a LocalCluster started and stopped here). Both give the
same index statistics and the same ranked arrays, so run files, metrics and the run cache do not
depend on the executor: the driver turns the arrays into runs, evaluates and compares them.

An executor offers ``build`` (an index builder for :func:`harness.engine.index.ensure_index`),
``search(index, sims, queries, depth, threads)`` yielding ``(similarity, ranked, seconds)`` in
the order of ``sims`` (``ranked`` as :meth:`harness.engine.search.Searcher.search` returns it),
``describe()`` and ``close()``. Dask is imported only when a Dask executor starts.
"""

from __future__ import annotations

from harness.config import Execution
from harness.events import Emit, ignore
from harness.experiment.executors.dask import DaskExecutor
from harness.experiment.executors.local import LocalExecutor

__all__ = ["open_executor"]


def open_executor(execution: Execution, on: Emit = ignore):
    """The executor for an `execution:` setting; it connects (or starts a cluster) on first use."""
    if execution.engine == "dask":
        return DaskExecutor(execution, on)
    return LocalExecutor(on)
