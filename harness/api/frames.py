"""Tables in, harness objects out, and back: the Python API's conversions (and its keyword
arguments into the policies of harness.policies, :func:`as_policy`).

Inputs follow PyTerrier's column names (``qid``, ``docno``, ``score``, ``rank``, ``label``,
``query``) and accept ir_measures' (``query_id``, ``doc_id``, ``relevance``) and
pytrec_eval's dicts (``{qid: {docno: score}}`` runs, ``{qid: {docno: label}}`` qrels). Every
bad input is a :class:`~harness.errors.DataError` naming the argument and the column or key.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from harness import lazy
from harness.errors import DataError
from harness.formats.columns import pad8
from harness.formats.hygiene import windows_path_hint
from harness.formats.qrels import Qrels, read_qrels
from harness.formats.run import Run
from harness.formats.runs import read_run

pd = lazy.module("pandas")

if TYPE_CHECKING:  # the annotations' type; pandas itself is imported on first use
    from pandas import DataFrame

__all__ = ["as_run", "as_qrels", "as_policy", "ids", "run_frame", "long_per_topic", "means_frame", "COLUMNS"]

# role -> accepted column names, PyTerrier's first
COLUMNS = {
    "qid": ("qid", "query_id"),
    "docno": ("docno", "doc_id", "docid"),
    "score": ("score",),
    "rank": ("rank",),
    "label": ("label", "relevance", "rel"),
    "run": ("run", "name", "system"),
    "measure": ("measure",),
    "value": ("value",),
    "query": ("query", "text"),
}


def column(df: DataFrame, role: str, what: str, required: bool = True) -> str | None:
    """The name of the column of ``df`` that plays ``role`` (see COLUMNS)."""
    for name in COLUMNS[role]:
        if name in df.columns:
            # a name given twice, or a level of MultiIndex columns, selects a table, not a column
            if not isinstance(df.columns.get_loc(name), int):
                raise DataError(what, f"column {name!r} is given more than once: name each column once")
            return name
    if required:
        raise DataError(
            what,
            f"no {role} column: expected one of {', '.join(COLUMNS[role])} (columns given: {', '.join(map(str, df.columns))})",
        )
    return None


def ids(values, what: str, role: str) -> np.ndarray:
    """The ids of a column as texts: no missing value, no float or boolean, no whitespace."""
    s = pd.Series(values)
    if s.isna().any():
        raise DataError(what, f"column {role} has a missing value at row {int(np.flatnonzero(s.isna())[0])}")
    # A float id is text no qrels or run file holds (topic 1 would be '1.0', every score 0),
    # and a boolean one is no id at all: refused, as the topic readers refuse them, rather
    # than guessed at (1.5 and 1e20 have no integer text to guess).
    kinds = s.map(type) if s.dtype == object else pd.Series([s.dtype.type])
    odd = np.flatnonzero(kinds.map(lambda t: issubclass(t, (float, bool, np.floating, np.bool_))).to_numpy())
    if odd.size:
        row = int(odd[0]) if s.dtype == object else 0
        value = _plain(s.iloc[row])
        raise DataError(
            what,
            f"column {role}, row {row}: ids are text or integers (got {value!r}, a "
            f"{'boolean' if isinstance(value, bool) else 'floating-point number'}); "
            f"convert the column, e.g. df[{role!r}].astype(int).astype(str)",
        )
    s = s.astype(str)
    bad = np.flatnonzero(((s == "") | s.str.contains(r"\s", regex=True)).to_numpy())
    if bad.size:
        raise DataError(
            what,
            f"column {role}, row {int(bad[0])}: ids must be non-empty and without whitespace (got {s.iloc[bad[0]]!r})",
        )
    return s.to_numpy(dtype=object)


def _plain(value):
    """A numpy scalar as Python's (its repr in a message is ``1.0``, not ``np.float64(1.0)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _grouped(qids: np.ndarray, *cols: np.ndarray):
    """Rows grouped by qid, topics in order of first appearance, rows in their order (stable)."""
    codes, topics = pd.factorize(qids, sort=False)
    order = np.argsort(codes, kind="stable")
    offsets = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=len(topics)), out=offsets[1:])
    return [str(t) for t in topics], offsets, *(c[order] for c in cols)


def _encode(docs: np.ndarray) -> np.ndarray:
    if not len(docs):
        return np.zeros(0, dtype="S8")
    return pad8(np.array([d.encode("utf-8", "surrogateescape") for d in docs], dtype="S"))


def _file(x, what: str) -> Path | None:
    """``x`` as a path when it is one (a string or path-like), which must then name a file; else None."""
    if not isinstance(x, (str, os.PathLike)):
        return None
    path = Path(x)
    if not path.is_file():
        raise DataError(str(path), f"{what} file not found{windows_path_hint(path)}")
    return path


def as_policy[P](make: Callable[..., P], what: str, *args, **options) -> P:
    """``make(*args, **options)``: a policy of harness.policies from the API's arguments; a value
    it refuses (its ValueError) is a DataError naming ``what``."""
    try:
        return make(*args, **options)
    except ValueError as e:
        raise DataError(what, str(e)) from None


def as_run(run, what: str = "run", duplicates: str = "error") -> Run:
    """A :class:`Run` from a TREC run file path, a DataFrame (qid, docno, score; rows ordered
    by ``rank`` when that column exists, else in row order) or a ``{qid: {docno: score}}`` dict."""
    if isinstance(run, Run):
        return run
    path = _file(run, what)
    if path is not None:
        return read_run(path, duplicates=duplicates)
    if isinstance(run, Mapping):
        rows = []
        for qid, docs in run.items():
            if not isinstance(docs, Mapping):
                raise DataError(what, f"topic {qid!r}: expected {{docno: score}} (got {type(docs).__name__})")
            rows += [(qid, d, s) for d, s in docs.items()]
        run = pd.DataFrame(rows, columns=["qid", "docno", "score"])
        what = f"{what} (dict)"
    if not isinstance(run, pd.DataFrame):
        raise DataError(
            what,
            f"expected a run file path, a DataFrame or a {{qid: {{docno: score}}}} dict (got {type(run).__name__})",
        )
    df = run
    scores = pd.to_numeric(df[column(df, "score", what)], errors="coerce").to_numpy(dtype=np.float64)
    if np.isnan(scores).any():
        raise DataError(what, f"column score: row {int(np.flatnonzero(np.isnan(scores))[0])} is not a number")
    qids = ids(df[column(df, "qid", what)], what, "qid")
    docs = ids(df[column(df, "docno", what)], what, "docno")
    rank = column(df, "rank", what, required=False)
    if rank is not None:  # rows by rank within each topic; topics stay in order of first appearance
        ranks = pd.to_numeric(df[rank], errors="coerce").to_numpy(dtype=np.float64)
        if np.isnan(ranks).any():
            raise DataError(what, f"column rank: row {int(np.flatnonzero(np.isnan(ranks))[0])} is not a number")
        order = np.lexsort((ranks, pd.factorize(qids, sort=False)[0]))
        qids, docs, scores = qids[order], docs[order], scores[order]
    topics, offsets, docs, scores = _grouped(qids, docs, scores)
    return Run(topics, offsets, _encode(docs), scores, what).deduped(duplicates, None)


def as_qrels(qrels, what: str = "qrels") -> Qrels:
    """:class:`Qrels` from a TREC qrels path, a DataFrame (qid, docno, label) or a
    ``{qid: {docno: label}}`` dict. Labels must be integers."""
    if isinstance(qrels, Qrels):
        return qrels
    path = _file(qrels, what)
    if path is not None:
        return read_qrels(path)
    if isinstance(qrels, Mapping):
        source = f"{what} (dict)"
        for qid, judged in qrels.items():
            if not isinstance(judged, Mapping):
                raise DataError(source, f"topic {qid!r}: expected {{docno: label}} (got {type(judged).__name__})")
            if isinstance(qid, (float, bool, np.floating, np.bool_)):
                raise DataError(source, f"topic {qid!r}: ids are text or integers (got a {type(qid).__name__})")
        # A topic without judgments is left out, as pytrec_eval leaves it out and as a qrels file
        # cannot list it (it was evaluated, scoring 0, and lowered the means).
        return Qrels.from_dict({str(q): _judged(q, j, source) for q, j in qrels.items() if j}, source=source)
    if not isinstance(qrels, pd.DataFrame):
        raise DataError(
            what,
            f"expected a qrels file path, a DataFrame or a {{qid: {{docno: label}}}} dict (got {type(qrels).__name__})",
        )
    df = qrels
    given = df[column(df, "label", what)]
    labels = pd.to_numeric(given, errors="coerce").to_numpy(dtype=np.float64)
    # beyond +-2**63 (or infinite) a label has no int64: refused as the qrels reader refuses it
    bad = np.flatnonzero(np.isnan(labels) | (labels != np.round(labels)) | (labels >= 2.0**63) | (labels < -(2.0**63)))
    if bad.size:
        shown = _plain(given.iloc[bad[0]])
        raise DataError(
            what, f"column label, row {int(bad[0])}: labels must be integers within 64 bits (got {shown!r})"
        )
    qids = ids(df[column(df, "qid", what)], what, "qid")
    docs = ids(df[column(df, "docno", what)], what, "docno")
    topics, offsets, docs, labels = _grouped(qids, docs, labels.astype(np.int64))
    q = Qrels(topics, offsets, _encode(docs), labels, what)
    dup = pd.Series(q.keys()).duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        t = int(np.searchsorted(offsets, i, side="right")) - 1
        raise DataError(
            what, f"topic {topics[t]!r}: document {docs[i]!r} is judged twice; keep one judgment per document"
        )
    return q


def _judged(qid, judged: Mapping, source: str) -> dict:
    """One topic of a qrels dict under the rules of a qrels DataFrame: integer doc ids as their
    text (a run dict's are read so), integral float labels (``1.0``, what a float column's
    ``to_dict`` gives) as integers; anything else goes to :meth:`Qrels.from_dict` to judge."""
    out: dict = {}
    for doc, label in judged.items():
        if isinstance(doc, (int, np.integer)) and not isinstance(doc, (bool, np.bool_)):
            doc = str(doc)
        if isinstance(label, (float, np.floating)) and float(label).is_integer() and abs(float(label)) < 2.0**63:
            label = int(label)
        if doc in out:
            raise DataError(source, f"topic {qid!r}: document {doc!r} is judged twice (as an integer and as text)")
        out[doc] = label
    return out


def run_frame(run: Run) -> DataFrame:
    """PyTerrier's result columns: qid, docno, rank (1, 2, ... in the run's order, as in the
    TREC run file) and score."""
    n = np.diff(run.offsets)
    topics = np.repeat(np.array(run.topics(), dtype=object), n)
    ranks = np.arange(len(run)) - np.repeat(run.offsets[:-1], n) + 1
    docs = [d.decode("utf-8", "surrogateescape") for d in run.docids.tolist()]
    return pd.DataFrame({"qid": topics, "docno": docs, "rank": ranks.astype(np.int64), "score": run.scores})


def long_per_topic(name: str, ev, measures) -> DataFrame:
    """An Evaluation's per-topic values, long: run, qid, measure, value (topics in evaluation
    order, measures in the given order)."""
    parts = []
    for m in measures:
        values = ev.per_topic[str(m)]
        parts.append(
            pd.DataFrame(
                {"run": name, "qid": list(values), "measure": str(m), "value": np.fromiter(values.values(), float)}
            )
        )
    if not parts:
        return pd.DataFrame(columns=["run", "qid", "measure", "value"])
    return pd.concat(parts, ignore_index=True)


def means_frame(means: Mapping[str, Mapping[str, float]], measures) -> DataFrame:
    """One row per run (the index, named ``run``), one column per measure."""
    names = [str(m) for m in measures]
    df = pd.DataFrame([[means[r][m] for m in names] for r in means], index=list(means), columns=names)
    df.index.name = "run"
    return df
