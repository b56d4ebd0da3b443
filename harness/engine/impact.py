"""Impact search: learned sparse retrieval over the user's term weights, with Anserini's semantics.

An ``impact`` collection (Anserini's ``JsonVectorCollection``) is indexed by IndexCollection
``-impact -pretokenized`` (harness.engine.index.IndexOptions.impact): each document's text is its
terms, each written ``weight`` times, split by Lucene's ``WhitespaceAnalyzer``, so a term's
frequency in the document is its weight. An ``impact`` run scores with Anserini's
``ImpactSimilarity``: a document's score is the sum, over the query terms it holds, of its weight
for the term times the query's weight (``freq * boost`` in float; Lucene sums the clauses). Hits
are ordered, cut and tie-adjusted as every Anserini search is (harness.engine.search: score
descending, external id ascending, scores rounded to 4 decimals and near-ties spread by 1e-6).

A query comes in one of Anserini's two forms (``BatchSearcher.impact`` / ``impactWeights``):

- a pretokenized text (``str``; SearchCollection ``-impact -pretokenized``,
  ``SimpleImpactSearcher.search(String)``): split by the ``WhitespaceAnalyzer``, each occurrence of
  a token adds one to its weight (``"f4 f4 f35"`` is f4: 2, f35: 1). Whatever the index's analyzer:
  Anserini's impact searcher always splits at whitespace;
- term weights (a ``dict``, from ``impact`` topics; ``SimpleImpactSearcher.search(Map<String,
  Integer>)``): one clause per term with its weight, a weight of 0 included (documents holding only
  such terms match with score 0).

A term the index lacks matches nothing. The weights are checked before Java
(harness.formats.impact.check_weights).
"""

from __future__ import annotations

import numpy as np

from harness.engine import lucene
from harness.formats.impact import check_weights

__all__ = ["search_packed"]


def search_packed(java, queries: list, depth: int, threads: int, source: str = "queries") -> bytes:
    """BatchSearcher's packed results of an impact search of ``queries`` (texts, ``{term: weight}``
    mappings, or both: each searched in its form, the results in the queries' order) on the index
    BatchSearcher ``java`` holds."""
    texts = [i for i, q in enumerate(queries) if isinstance(q, str)]
    if len(texts) == len(queries):
        return lucene.interruptible(java.impact, list(queries), depth, threads).tostring()
    if not texts:
        return _weights_packed(java, queries, depth, threads, source)
    from harness.engine.search import batch_arrays  # search imports this module

    weighted = [i for i, q in enumerate(queries) if not isinstance(q, str)]
    parts = [
        (texts, lucene.interruptible(java.impact, [queries[i] for i in texts], depth, threads).tostring()),
        (weighted, _weights_packed(java, [queries[i] for i in weighted], depth, threads, source, weighted)),
    ]
    hits: list = [None] * len(queries)
    for where, raw in parts:
        counts, docs, scores = batch_arrays(raw, len(where))
        ends = np.cumsum(counts).tolist()
        for i, start, end in zip(where, [0, *ends[:-1]], ends):
            hits[i] = (docs[start:end], scores[start:end])
    counts = np.array([len(d) for d, _ in hits], dtype="<i4")
    return b"".join(
        [counts.tobytes(), *(d.astype("<i4").tobytes() for d, _ in hits), *(s.astype("<f4").tobytes() for _, s in hits)]
    )


def _weights_packed(java, queries: list, depth: int, threads: int, source: str, numbers: list | None = None) -> bytes:
    """impactWeights's packed results of ``{term: weight}`` queries (checked here: any caller's,
    an API dict too; ``numbers``, 0-based, name them in errors as the caller counts them)."""
    terms: list[str] = []
    weights: list[int] = []
    counts: list[int] = []
    for i, q in enumerate(queries):
        q = check_weights(source, q, None, document=False, what=f"query {(numbers[i] if numbers else i) + 1}")
        terms += q
        weights += q.values()
        counts.append(len(q))
    return lucene.interruptible(java.impactWeights, terms, weights, counts, depth, threads).tostring()
