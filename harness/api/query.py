"""``harness.query``: ad-hoc queries against an index from a notebook, PyTerrier's result columns
out; the query verb's adapter (harness.verbs.query). ``harness.search``, its name before, is kept
for one release with a DeprecationWarning: it meant another thing than ``harness search CONFIG``
(a config's runs, searched without evaluating them)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from harness import lazy
from harness.api.frames import column, ids
from harness.api.run import Result
from harness.errors import DataError
from harness.events import ignore, to_stderr
from harness.formats.impact import check_weights, weights_text
from harness.verbs import query as ad_hoc  # the query verb (its `query` is also this module's function)
from harness.verbs.similarity import parse_similarity

pd = lazy.module("pandas")

if TYPE_CHECKING:  # the annotations' type; pandas itself is imported on first use
    from pandas import DataFrame

__all__ = ["query", "search"]


def _queries(queries) -> list[tuple[str, str | dict]]:
    """(qid, text) pairs from a string, a list of strings (qids "1", "2", ...), a dict
    {qid: text} or a DataFrame with qid and query columns (PyTerrier's topics). A query may be
    term weights for an impact run, ``{term: weight}``: kept as a dict."""
    if isinstance(queries, str) or _is_vector(queries) or _is_weights(queries):
        pairs = [("1", queries)]
    elif isinstance(queries, Mapping):
        pairs = list(zip(ids(list(queries), "queries", "qid").tolist(), queries.values()))
    elif isinstance(queries, pd.DataFrame):
        q, t = column(queries, "qid", "queries"), column(queries, "query", "queries")
        pairs = list(zip(ids(queries[q], "queries", "qid").tolist(), queries[t]))  # no NaN or 1.0 ids
    else:
        try:
            pairs = [(str(i), t) for i, t in enumerate(queries, start=1)]
        except TypeError:
            raise DataError(
                "queries", f"expected a string, a list of strings, a dict or a DataFrame (got {type(queries).__name__})"
            ) from None
    # a query vector (for knn on a vectors index) goes to the searcher as its JSON text
    pairs = [(qid, _vector_text(t) if _is_vector(t) else t) for qid, t in pairs]
    seen = set()
    pairs = [(qid, _plain_weights(t) if isinstance(t, Mapping) else t) for qid, t in pairs]
    for qid, text in pairs:
        if isinstance(text, dict):  # checked here too, to name the query by its id
            check_weights("queries", text, None, document=False, what=f"query {qid}")
        elif not isinstance(text, str) or not text.strip():
            raise DataError(
                "queries",
                f"query {qid!r}: expected a non-empty text, a vector of numbers or term weights (got {text!r})",
            )
        if qid in seen:
            raise DataError("queries", f"query id {qid!r} is given twice")
        seen.add(qid)
    if not pairs:
        raise DataError("queries", "no queries given")
    return pairs


def _is_vector(value) -> bool:
    """A query vector: a non-empty list, tuple or 1-d array of real numbers (not of texts)."""
    if isinstance(value, np.ndarray):
        return value.ndim == 1 and value.size > 0 and value.dtype.kind in "iuf"
    return (
        isinstance(value, (list, tuple))
        and len(value) > 0
        and all(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in value)
    )


def _is_weights(value) -> bool:
    """Term weights for an impact run: a non-empty mapping of texts to numbers (a dict {qid: text}
    maps to texts, so the two never meet)."""
    return (
        isinstance(value, Mapping)
        and len(value) > 0
        and all(isinstance(t, str) for t in value)
        and all(
            isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, bool) for w in value.values()
        )
    )


def _plain_weights(weights: Mapping) -> dict:
    """Term weights with numpy's numbers as Python's (checked by the search, naming the query)."""
    return {t: w.item() if isinstance(w, (np.integer, np.floating)) else w for t, w in weights.items()}


def _vector_text(value) -> str:
    return json.dumps([float(x) for x in np.asarray(value, dtype=np.float64).tolist()])


def query(
    index,
    queries,
    similarity="bm25",
    k: int = 10,
    *,
    text: bool = False,
    threads: int = 2,
    verbose: bool = False,
    language: str | None = None,
    **params: float,
) -> DataFrame:
    """Query an index and return PyTerrier's result columns: ``qid``, ``query``, ``docno``,
    ``rank`` (1, 2, ...), ``score``, and ``text`` (the stored document text) when ``text=True``.

    ``index``: a harness index folder, any Anserini index, a folder of ``.txt`` files (indexed
    once into ``indexes/`` and reused while its fingerprint matches, as ``harness lab`` does),
    or a :class:`Result` (its index). ``queries``: a string, a list of strings (qids "1", "2",
    ...), a dict ``{qid: text}`` or a DataFrame with ``qid`` and ``query`` columns; on a vectors
    index (``similarity="knn"``, ``efSearch=`` for HNSW) each query is a vector of numbers (one
    vector, a list of them, or a dict of them), from the model that made the documents' vectors.
    On an impact index (``similarity="impact"``) a query is a pretokenized text (each occurrence
    of a token adds one to its weight) or term weights ``{term: weight}`` (whole numbers >= 0).
    ``similarity``: a spec such as ``"bm25"``, ``"bm25(k1=1.2,b=0.75)"``, ``"dirichlet"``,
    and parameters as keywords (``k1=1.2``; ``**{"lambda": 0.2}`` for jm). The ranking is a
    harness run's: Anserini's exact semantics (see docs/semantics.md "Retrieval semantics").
    ``language``: the code of the documents' and queries' language (docs/config.md, Languages):
    a text folder is indexed with it, an Anserini index searched with it; None takes a harness
    index's own language, else English.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise DataError("k", f"must be an integer >= 1 (got {k!r})")
    pairs = _queries(queries)
    sim = parse_similarity(similarity, params)
    given = index.index if isinstance(index, Result) else index
    where = ad_hoc.open_index(given, flag="index", on=to_stderr if verbose else ignore, language=language)
    asked = [t for _, t in pairs]
    ranked = ad_hoc.query(where, asked, [sim], k, threads=threads, qids=[q for q, _ in pairs]).by_similarity[str(sim)]
    shown = [(qid, weights_text(q) if isinstance(q, dict) else q) for qid, q in pairs]  # weights as JSON text
    rows = [
        (qid, query, doc, rank, score)
        for (qid, query), (docs, scores) in zip(shown, ranked)
        for rank, (doc, score) in enumerate(zip(docs, scores.tolist()), start=1)
    ]
    df = pd.DataFrame(rows, columns=["qid", "query", "docno", "rank", "score"])
    df = df.astype({"rank": "int64", "score": "float64"})
    if text:
        texts = ad_hoc.texts(where, df["docno"].tolist())
        df["text"] = df["docno"].map(texts)
    df.attrs = {"index": str(where.path), "similarity": str(sim)}
    return df


def search(*args, **kwargs) -> DataFrame:
    """Deprecated: :func:`query` under its former name (the same arguments, the same results),
    kept for one release. ``harness search CONFIG`` on the command line, a config's runs written
    without evaluating them, has no function of its own: ``harness.run(config)`` searches the same
    runs (``Result.runs``), and evaluates nothing when the config names no qrels."""
    warnings.warn(
        "harness.search is now harness.query (the same arguments and results); the old name goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return query(*args, **kwargs)
