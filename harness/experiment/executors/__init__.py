"""Executors: where an experiment's index is built and its runs are searched.

``local`` does both in this process (one JVM, ``index.threads`` threads); ``dask`` does them on
Dask workers (a running scheduler, or a LocalCluster started and stopped here). Both give the
same index statistics and the same runs, bit for bit, so run files, metrics and the run cache do
not depend on the executor: the driver writes the runs, evaluates and compares them.

An executor offers ``build(corpus, options, work, threads)`` (the index builder
:func:`harness.engine.index.ensure_index` calls, as :func:`harness.engine.index.build_here` is
for this process), ``search_runs(index, sims, topics, depth, threads)`` yielding ``(similarity,
run, seconds, times)`` in the order of ``sims`` (``run`` a columnar :class:`~harness.formats.run.Run` of
the ``(qid, text)`` topics that returned something, as
:meth:`harness.engine.search.Searcher.search_run` makes it; ``seconds`` the driver's wall time
for it locally and the workers' summed under Dask; ``times`` the searcher's own measurement,
:class:`harness.engine.latency.SearchTimes`), ``describe()`` and ``close()``.
Dask is imported only when a Dask executor starts.
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
