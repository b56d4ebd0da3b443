"""The searcher of an index, text or vectors: the OpenSearcher protocol both searchers offer,
and open_searcher's choice between them.

:func:`open_searcher` opens the text Searcher (harness.engine.search) or, for a vectors index,
the DenseSearcher (harness.engine.dense), as the index's options say. :class:`OpenSearcher` is
all that the callers that search any index use (the executors, a Dask worker, the query verb):
``timed_run`` for a run of ``(qid, query)`` topics with its times, ``timed_arrays`` for the
compact arrays a Dask worker sends back, ``search`` for ad-hoc queries, the index's external
``ids``, and ``close``.
"""

from __future__ import annotations

from collections.abc import Callable
from os import PathLike
from typing import Any, Protocol

import numpy as np

from harness.engine.dense import DenseSearcher
from harness.engine.index import IndexOptions
from harness.engine.latency import SearchTimes
from harness.engine.search import Searcher
from harness.formats.run import Run
from harness.specs.similarity import Similarity

__all__ = ["OpenSearcher", "open_searcher"]


class OpenSearcher(Protocol):
    """What a searcher open on one index offers, text or vectors. A query is a text, an impact
    run's ``{term: weight}`` mapping, or a vector as JSON text (harness.engine.dense)."""

    path: str
    options: IndexOptions
    ids: np.ndarray  # the external ids in Lucene docid order (an object array of str)

    def timed_run(
        self,
        topics: list[tuple[str, Any]],
        sim: Similarity,
        depth: int,
        threads: int = 2,
        source: str = "",
        progress: Callable[[int], None] | None = None,
    ) -> tuple[Run, SearchTimes]:
        """The :class:`~harness.formats.run.Run` of ``(qid, query)`` topics (those that return
        nothing left out) and what the search took (harness.engine.latency)."""
        ...

    def timed_arrays(
        self, queries: list[Any], /, sim: Similarity, depth: int, threads: int = 2
    ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], SearchTimes]:
        """(hits per query, their Lucene docids, float32 scores) in rank order, and the times:
        what a Dask worker sends back. A text index's queries are the query texts (or term
        weights), a vectors index's ``(qid, vector)`` pairs, so that a bad vector names its topic."""
        ...

    def search(
        self, queries: list[Any], sim: Similarity, depth: int, threads: int = 2
    ) -> list[tuple[list[str], np.ndarray]]:
        """Per query, (doc ids, strictly decreasing float64 scores) in rank order."""
        ...

    def close(self) -> None: ...


def open_searcher(index_path: str | PathLike[str], options: IndexOptions) -> OpenSearcher:
    """The searcher of an index: DenseSearcher for a vectors index, else the text Searcher."""
    return DenseSearcher(index_path, options) if options.vectors else Searcher(index_path, options)
