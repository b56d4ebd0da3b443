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
- ``flat``: exact, every document scored (``k`` = the number of documents; Anserini's
  FlatDenseSearcher asks for 1,000 candidates, the same hits for a depth up to 1,000).
- Ties: by external id ascending (the sort's second key), as Anserini.
"""

from __future__ import annotations

import json

import numpy as np

from harness.engine import lucene
from harness.engine.index import IndexOptions
from harness.engine.search import Searcher, id_table, run_from_arrays, strictly_decreasing
from harness.engine.similarity import Similarity
from harness.errors import DataError, EngineError, HarnessError

__all__ = ["DenseSearcher", "VECTOR_FIELD", "open_searcher"]

VECTOR_FIELD = "vector"  # Anserini's Constants.VECTOR
ID_FIELD = "id"  # Anserini's Constants.ID


def open_searcher(index_path, options: IndexOptions):
    """The searcher of an index: DenseSearcher for a vectors index, else the text Searcher."""
    return DenseSearcher(index_path, options) if options.vectors else Searcher(index_path, options)


class DenseSearcher:
    """Searches one vectors index with ``knn`` runs; the same surface as engine.search.Searcher."""

    def __init__(self, index_path, options: IndexOptions):
        self.path, self.options = str(index_path), options
        J = lucene.jclass
        try:
            File = J("java.io.File")
            self._reader = J("org.apache.lucene.index.DirectoryReader").open(
                J("org.apache.lucene.store.FSDirectory").open(File(self.path).toPath())
            )
            reader = lucene.cast("org.apache.lucene.index.IndexReader", self._reader)
            self._searcher = J("org.apache.lucene.search.IndexSearcher")(reader)
            self._stored = self._searcher.storedFields()
            self._query = J("org.apache.lucene.search.KnnFloatVectorQuery")
            SortField = J("org.apache.lucene.search.SortField")
            self._sort = J("org.apache.lucene.search.Sort")(
                SortField.FIELD_SCORE, SortField(ID_FIELD, J("org.apache.lucene.search.SortField$Type").STRING_VAL)
            )
            self.max_doc = int(self._reader.maxDoc())
            self.dimension = self._dimension()
        except HarnessError:
            raise
        except Exception as e:
            raise EngineError(f"cannot open vectors index {index_path}: {e}") from e

    def _dimension(self) -> int:
        leaves = self._reader.leaves()
        for i in range(leaves.size()):
            info = leaves.get(i).reader().getFieldInfos().fieldInfo(VECTOR_FIELD)
            if info is not None and info.getVectorDimension() > 0:
                return int(info.getVectorDimension())
        raise DataError(self.path, f"the index has no vector field {VECTOR_FIELD!r}: it is not a vectors index")

    def _vector(self, qid: str, text: str, source: str) -> list[float]:
        vector = np.asarray(json.loads(text), dtype=np.float32)
        if vector.ndim != 1 or vector.size != self.dimension:
            raise DataError(
                source or self.path,
                f"topic {qid!r} has a vector of {vector.size} dimensions; the index {self.path} holds vectors "
                f"of {self.dimension} (query and document vectors must come from the same model)",
            )
        return vector.tolist()

    def _k(self, sim: Similarity, depth: int) -> int:
        if self.options.vectors == "hnsw":
            return int(sim.params["efSearch"])
        return max(1, self.max_doc)  # flat: exact, and ties at the cut-off ordered by id

    def search_hits(self, topics: list[tuple[str, str]], sim: Similarity, depth: int, source: str = ""):
        """Per topic, (external ids, float32 scores) in rank order."""
        if sim.model != "knn":
            raise DataError(self.path, f"{sim} needs a text index; a vectors index is searched with knn runs only")
        depth = max(1, min(int(depth), self.max_doc))
        vectors = [self._vector(qid, text, source) for qid, text in topics]  # all checked before searching
        out = []
        for vector in vectors:
            try:
                query = self._query(VECTOR_FIELD, vector, self._k(sim, depth))
                hits = self._searcher.search(query, depth, self._sort, True).scoreDocs
                ids = [self._stored.document(h.doc).get(ID_FIELD) for h in hits]
                scores = np.array([h.score for h in hits], dtype=np.float32)
            except Exception as e:
                raise EngineError(f"search with {sim} failed: {e}") from e
            out.append((ids, scores))
        return out

    def search_run(self, topics: list[tuple[str, str]], sim: Similarity, depth: int, threads: int = 2, source=""):
        """A :class:`~harness.formats.runs.Run` (topics without hits left out), as Searcher.search_run."""
        hits = self.search_hits(topics, sim, depth, source)
        counts = np.array([len(ids) for ids, _ in hits], dtype=np.int64)
        ids = id_table([d for found, _ in hits for d in found]) if counts.sum() else np.zeros(0, "S8")
        scores = np.concatenate([s for _, s in hits]) if hits else np.zeros(0, np.float32)
        return run_from_arrays(topics, counts, ids, scores, source or f"<search {sim}>")

    def search(self, queries: list[str], sim: Similarity, depth: int, threads: int = 2):
        """For each query vector (JSON text), (doc ids, float64 scores) in rank order."""
        hits = self.search_hits([(str(i), q) for i, q in enumerate(queries)], sim, depth)
        return [(ids, strictly_decreasing(scores)) for ids, scores in hits]

    def close(self) -> None:
        self._reader.close()
