"""Dense retrieval: nearest neighbours of the user's query vectors in a vectors index, with
Anserini's semantics and without its searchers.

Anserini's ``IndexFlatDenseVectors``/``IndexHnswDenseVectors`` (harness.engine.index) store
each document's vector in the field ``vector`` with Lucene's DOT_PRODUCT similarity (its
``DenseVectorDocumentGenerator``), the external id in ``id``. Its ``FlatDenseSearcher`` and
``HnswDenseSearcher`` fetch a list of prebuilt indexes over the network in their constructors,
even for a local index, so we open the index with Lucene and run what they run:
``IndexSearcher.search(new KnnFloatVectorQuery("vector", q, k), depth, sort(score, id), true)``.

- Score: Lucene's DOT_PRODUCT, ``max((1 + q.d) / 2, 0)`` in float32, unrounded.
- ``hnsw``: ``k`` = efSearch (Anserini's ``-efSearch``), so at most min(efSearch, depth) hits.
- ``flat``: exact, every document scored; ``k`` = 1,000 candidates as Anserini's
  FlatDenseSearcher asks for (so ties at the 1,000th are cut as Lucene cuts them, by Lucene
  docid), or ``depth`` when larger (Anserini then stops at 1,000 hits; we return ``depth``).
  Asking for every document (k = their number) cost a heap and a sort of all of them per query.
- Ties: by external id ascending (the sort's second key), as Anserini.
"""

from __future__ import annotations

import json

import numpy as np

from harness.engine import lucene
from harness.engine.index import IndexOptions
from harness.engine.latency import SearchTimes
from harness.engine.search import (
    batch_arrays,
    id_table,
    run_from_arrays,
    run_text_writer,
    strictly_decreasing,
)
from harness.engine.vectors import parse_vector
from harness.errors import DataError, EngineError, HarnessError
from harness.specs.models import IndexKind
from harness.specs.similarity import Similarity

__all__ = ["DenseSearcher", "VECTOR_FIELD"]

VECTOR_FIELD = "vector"  # Anserini's Constants.VECTOR
ID_FIELD = "id"  # Anserini's Constants.ID
FLAT_CANDIDATES = 1000  # FlatDenseSearcher's KnnFloatVectorQuery(VECTOR, q, 1000)


class DenseSearcher:
    """Searches one vectors index with ``knn`` runs; the surface of engine.search.Searcher
    (harness.engine.searchers.OpenSearcher).

    A batch of queries is one Java call (``BatchSearcher.knn``): the query vectors go in as one
    float32 byte array, the hits come back as Lucene docids and scores in one byte array, and the
    docids become external ids through a table read once per index (``externalIds``)."""

    def __init__(self, index_path, options: IndexOptions):
        self.path, self.options = str(index_path), options
        Batch = lucene.jclass("harness.BatchSearcher")
        try:
            self._java = Batch(self.path, None)  # no analyzer: nothing is analysed
            self.max_doc = int(self._java.maxDoc())
            self.dimension = int(self._java.vectorDimension())
            ids = self._java.externalIds().tostring() if self.max_doc else b""
        except HarnessError:
            raise
        except Exception as e:
            raise EngineError(f"cannot open vectors index {index_path}: {e}") from e
        if not self.dimension:
            self._java.close()
            raise DataError(self.path, f"the index has no vector field {VECTOR_FIELD!r}: it is not a vectors index")
        # external ids in Lucene docid order, as Searcher.ids (a Dask worker's id table and digest)
        self.ids = np.array(ids.decode("utf-8", "surrogateescape").split("\n")[:-1], dtype=object)
        self._ids = id_table(self.ids.tolist()) if self.max_doc else None
        self._ids_raw = ids  # each id followed by "\n", for RunText (Searcher.search_run)
        self._run_text = lucene.jclass("harness.RunText")

    def _vector(self, qid: str, text: str, source: str) -> np.ndarray:
        try:
            value = json.loads(text)
            vector = np.asarray(value, dtype=np.float32)
        except (ValueError, TypeError):
            shown = text if len(text) <= 60 else text[:57] + "..."
            raise DataError(
                source or self.path, f"topic {qid!r}: a knn query is a vector of numbers (a JSON list), not {shown!r}"
            ) from None
        if vector.ndim != 1 or vector.size != self.dimension:
            raise DataError(
                source or self.path,
                f"topic {qid!r} has a vector of {vector.size} dimensions; the index {self.path} holds vectors "
                f"of {self.dimension} (query and document vectors must come from the same model)",
            )
        try:  # the topics files' check (NaN, infinity, a squared length beyond float32), for any caller
            parse_vector(source or self.path, value, None)
        except DataError as e:
            raise DataError(source or self.path, f"topic {qid!r}: {str(e)[len(e.source) + 2 :]}") from None
        return vector

    def _k(self, sim: Similarity, depth: int) -> int:
        if self.options.vectors == "hnsw":
            return int(sim.params["efSearch"])
        # flat: Anserini's FlatDenseSearcher asks for FLAT_CANDIDATES; more when the depth is larger
        return max(1, min(self.max_doc, max(FLAT_CANDIDATES, depth)))

    def search_arrays(self, topics: list[tuple[str, str]], sim: Similarity, depth: int, threads: int = 2, source=""):
        """Hits per topic (int32[n]), their Lucene docids and float32 scores, in rank order."""
        return self.timed_arrays(topics, sim, depth, threads, source)[0]

    def timed_arrays(self, topics: list[tuple[str, str]], sim: Similarity, depth: int, threads: int = 2, source=""):
        """(:meth:`search_arrays`'s arrays, the search's :class:`~harness.engine.latency.SearchTimes`)."""
        packed, times = self._search_packed(topics, sim, depth, threads, source)
        return batch_arrays(packed, len(topics)), times

    def _search_packed(
        self, topics: list[tuple[str, str]], sim: Similarity, depth: int, threads: int, source
    ) -> tuple[bytes, SearchTimes]:
        """BatchSearcher.knn's packed results (as BatchSearcher.search's) and what the search
        took: each query timed from reading its vector to its ranked hits (harness.engine.latency)."""
        if sim.index is not IndexKind.VECTORS:
            raise DataError(self.path, f"{sim} needs a text index; a vectors index is searched with knn runs only")
        depth = max(1, min(int(depth), self.max_doc))
        # every vector checked before searching
        matrix = np.stack([self._vector(qid, text, source) for qid, text in topics]) if topics else None
        if matrix is None:
            return b"", SearchTimes.none(threads)
        try:
            timed = lucene.interruptible(
                self._java.knn,
                matrix.astype("<f4").tobytes(),
                self.dimension,
                self._k(sim, depth),
                depth,
                max(1, int(threads)),
            )
            return timed.packed().tostring(), SearchTimes.of(timed)
        except Exception as e:
            raise EngineError(f"search with {sim} failed: {e}") from e

    def search_hits(self, topics: list[tuple[str, str]], sim: Similarity, depth: int, source: str = "", threads=2):
        """Per topic, (external ids, float32 scores) in rank order."""
        counts, docs, scores = self.search_arrays(topics, sim, depth, threads, source)
        ids = self._ids[docs] if self._ids is not None and len(docs) else np.zeros(0, "S8")
        out, start = [], 0
        for c in counts.tolist():
            out.append(
                ([d.decode("utf-8", "surrogateescape") for d in ids[start : start + c]], scores[start : start + c])
            )
            start += c
        return out

    def search_run(
        self, topics: list[tuple[str, str]], sim: Similarity, depth: int, threads: int = 2, source="", progress=None
    ):
        """A :class:`~harness.formats.run.Run` (topics without hits left out), as Searcher.search_run
        (``progress`` is not called: a knn batch reports no count)."""
        return self.timed_run(topics, sim, depth, threads, source, progress)[0]

    def timed_run(
        self, topics: list[tuple[str, str]], sim: Similarity, depth: int, threads: int = 2, source="", progress=None
    ):
        """(:meth:`search_run`'s run, the search's :class:`~harness.engine.latency.SearchTimes`)."""
        packed, times = self._search_packed(topics, sim, depth, threads, source)
        counts, docs, scores = batch_arrays(packed, len(topics))
        ids = self._ids[docs] if self._ids is not None and len(docs) else np.zeros(0, "S8")
        run = run_from_arrays(topics, counts, ids, scores, source or f"<search {sim}>")
        run.text_writer = run_text_writer(self._run_text, packed, self._ids_raw, [qid for qid, _ in topics])
        return run, times

    def search(self, queries: list[str], sim: Similarity, depth: int, threads: int = 2, qids=None, source=""):
        """For each query vector (JSON text), (doc ids, float64 scores) in rank order; ``qids``
        (default 1, 2, ...) and ``source`` name a query in errors."""
        qids = [str(i) for i in range(1, len(queries) + 1)] if qids is None else list(qids)
        hits = self.search_hits(list(zip(qids, queries)), sim, depth, source, threads)
        return [(ids, strictly_decreasing(scores)) for ids, scores in hits]

    def close(self) -> None:
        self._java.close()
