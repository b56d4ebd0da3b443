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

from harness.engine import lucene
from harness.formats.impact import check_weights

__all__ = ["search_packed"]


def search_packed(java, queries: list, depth: int, threads: int, source: str = "queries", numbers=None, poll=None):
    """BatchSearcher's timed results (``Timed``: the packed results, each query's time) of an
    impact search of ``queries``, all texts or all ``{term: weight}`` mappings
    (harness.engine.search.Searcher mixes them), on the index BatchSearcher ``java`` holds;
    ``numbers`` (0-based) name the queries in errors; ``poll()`` is called about twice a second
    while Java searches (progress: ``java.done()``)."""
    if all(isinstance(q, str) for q in queries):
        return lucene.interruptible(java.impact, list(queries), depth, threads, poll=poll)
    return _weights_packed(java, queries, depth, threads, source, numbers, poll)


def _weights_packed(java, queries: list, depth: int, threads: int, source: str, numbers: list | None = None, poll=None):
    """impactWeights's timed results of ``{term: weight}`` queries (checked here: any caller's,
    an API dict too; ``numbers``, 0-based, name them in errors as the caller counts them)."""
    terms: list[str] = []
    weights: list[int] = []
    counts: list[int] = []
    for i, q in enumerate(queries):
        q = check_weights(source, q, None, document=False, what=f"query {(numbers[i] if numbers else i) + 1}")
        terms += q
        weights += q.values()
        counts.append(len(q))
    return lucene.interruptible(java.impactWeights, terms, weights, counts, depth, threads, poll=poll)
