"""The course lab's functions: measures of one ranked list of labels (rank 1 first).

The lab's conventions differ from trec_eval in two places, both exposed as parameters:

* ``precision(labels, k)`` divides by ``min(k, len(labels))`` (``short_list="lab"``);
  trec_eval's P@k divides by k even when fewer than k docs are returned
  (``short_list="trec_eval"``).
* ``recall`` and ``average_precision`` divide by the relevant labels *in the list* unless
  ``R`` (relevant docs in the collection, trec_eval's num_rel) is given.

Everything else matches the registry's measures: linear gain, discount log2(rank + 1), RR
is 0 without a relevant doc in the top k, nDCG is 0 when the ideal DCG is 0.

>>> precision([1, 0, 0, 0, 0], 100), precision([1, 0, 0, 0, 0], 100, short_list="trec_eval")
(0.2, 0.01)
>>> round(ndcg([2, 3, 1, 4, 0], 5), 2)
0.84
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "precision",
    "recall",
    "reciprocal_rank",
    "dcg",
    "ndcg",
    "average_precision",
    "interpolate",
    "rank_by_scores",
    "evaluate_frame",
]


def _labels(labels) -> np.ndarray:
    a = np.asarray(labels)
    if a.ndim != 1:
        raise ValueError(f"labels must be a flat sequence of numbers (got shape {a.shape})")
    return a.astype(np.float64)


def _k(k, n):
    if k is None:
        return n
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be an integer >= 1 (got {k!r})")
    return int(k)


def precision(labels: Sequence[float], k: int, *, rel: int = 1, short_list: str = "lab") -> float:
    """Relevant (label >= rel) in the top k, divided by ``min(k, len)`` (lab) or k (trec_eval)."""
    a, k = _labels(labels), _k(k, None)
    hits = float(np.count_nonzero(a[:k] >= rel))
    if short_list == "lab":
        den = min(k, len(a))
    elif short_list == "trec_eval":
        den = k
    else:
        raise ValueError(f"short_list must be 'lab' or 'trec_eval' (got {short_list!r})")
    return hits / den if den else 0.0


def recall(labels: Sequence[float], k: int, *, rel: int = 1, R: int | None = None) -> float:
    """Relevant in the top k / R; R defaults to the relevant labels in the whole list; 0 if R=0."""
    a, k = _labels(labels), _k(k, None)
    R = int(np.count_nonzero(a >= rel)) if R is None else R
    return float(np.count_nonzero(a[:k] >= rel)) / R if R else 0.0


def reciprocal_rank(labels: Sequence[float], k: int | None = None, *, rel: int = 1) -> float:
    """1 / rank of the first label >= rel within the top k; 0 if there is none."""
    a = _labels(labels)
    hit = np.flatnonzero(a[: _k(k, len(a))] >= rel)
    return 1.0 / (hit[0] + 1) if len(hit) else 0.0


def _gain(a, gain):
    a = np.where(a > 0, a, 0.0)
    if gain == "linear":
        return a
    if gain == "exp":
        return np.exp2(a) - 1.0
    raise ValueError(f"gain must be 'linear' or 'exp' (got {gain!r})")


def dcg(labels: Sequence[float], k: int | None = None, *, gain: str = "linear") -> float:
    """Sum over the top k of gain(label) / log2(rank + 1); negative labels gain nothing."""
    a = _labels(labels)
    a = a[: _k(k, len(a))]
    g = _gain(a, gain)
    return float(np.sum(g / np.log2(np.arange(2, len(a) + 2)))) if len(a) else 0.0


def ndcg(
    labels: Sequence[float], k: int | None = None, *, gain: str = "linear", ideal_labels: Sequence[float] | None = None
) -> float:
    """DCG@k / ideal DCG@k. The ideal sorts ``ideal_labels`` (default: the same labels; pass
    every judged label of the topic for trec_eval's ideal) in descending order; 0 if it is 0."""
    ideal = -np.sort(-_labels(labels if ideal_labels is None else ideal_labels))
    best = dcg(ideal, k, gain=gain)
    return dcg(labels, k, gain=gain) / best if best > 0 else 0.0


def average_precision(labels: Sequence[float], k: int | None = None, R: int | None = None, *, rel: int = 1) -> float:
    """Mean of precision@rank over the relevant ranks in the top k, divided by R (default: the
    relevant labels in the whole list; trec_eval's AP and AP@k pass the judged count)."""
    a = _labels(labels)
    rel_mask = a >= rel
    R = int(np.count_nonzero(rel_mask)) if R is None else R
    ranks = np.flatnonzero(rel_mask[: _k(k, len(a))]) + 1
    if not R:
        return 0.0
    return float(np.sum(np.arange(1, len(ranks) + 1) / ranks)) / R


def interpolate(precision: Sequence[float], recall: Sequence[float], recall_levels: Sequence[float]) -> list[float]:
    """For each recall level r, the highest precision observed at any recall >= r (0 if none).

    >>> interpolate([1, 0.5, 0.67], [0.5, 0.5, 1.0], [0.0, 0.75])
    [1.0, 0.67]
    """
    p = np.asarray(precision, dtype=np.float64)
    r = np.asarray(recall, dtype=np.float64)
    if p.shape != r.shape or p.ndim != 1:
        raise ValueError(f"precision and recall must be flat and of equal length (got {p.shape} and {r.shape})")
    out = []
    for level in recall_levels:
        sel = p[r >= level]
        out.append(float(sel.max()) if len(sel) else 0.0)
    return out


def rank_by_scores(labels: Sequence[float], scores: Sequence[float]) -> np.ndarray:
    """The labels in ranked order: by score descending, ties kept in the given order (stable).

    >>> rank_by_scores([0, 1, 2], [0.1, 0.5, 0.5]).tolist()
    [1, 2, 0]
    """
    lab = np.asarray(labels)
    s = np.asarray(scores, dtype=np.float64)
    if lab.shape != s.shape or lab.ndim != 1:
        raise ValueError(f"labels and scores must be flat and of equal length (got {lab.shape} and {s.shape})")
    return lab[np.argsort(-s, kind="stable")]


_RUN_COLS = {"qid": ("qid", "query_id"), "docid": ("docno", "doc_id", "docid"), "score": ("score",)}
_QREL_COLS = {"qid": ("qid", "query_id"), "docid": ("docno", "doc_id", "docid"), "label": ("label", "relevance", "rel")}


def _column(frame, role, names, given):
    if given:
        return np.asarray(frame[given])
    for name in names:
        try:
            return np.asarray(frame[name])
        except (KeyError, IndexError, ValueError):
            continue
    raise ValueError(f"no {role} column: expected one of {', '.join(names)} (or name it with {role}_col=...)")


def _grouped(qids, *cols):
    """Rows grouped by qid (first-appearance order, stable): (topics, offsets, cols...)."""
    qids = np.asarray(qids).astype(str)
    uniq, first, inv = np.unique(qids, return_index=True, return_inverse=True)
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(uniq))
    code = rank[inv]
    order = np.argsort(code, kind="stable")
    offsets = np.zeros(len(uniq) + 1, dtype=np.int64)
    np.cumsum(np.bincount(code, minlength=len(uniq)), out=offsets[1:])
    topics = [str(t) for t in uniq[np.argsort(first, kind="stable")]]
    return (topics, offsets) + tuple(np.asarray(c)[order] for c in cols)


def evaluate_frame(run, qrels, measures, policy=None, *, qid_col=None, docid_col=None, score_col=None, label_col=None):
    """Evaluate a run and qrels given as tables with column access (pandas DataFrames, dicts
    of lists, ...): run columns qid/query_id, docno/doc_id/docid, score; qrels columns
    qid/query_id, docno/doc_id/docid, label/relevance/rel. pandas is never imported here.
    Returns an :class:`harness.metrics.Evaluation` (same policies as ``evaluate``)."""
    from harness.formats.qrels import Qrels
    from harness.formats.runs import Run
    from harness.formats.tokenizer import pad8
    from harness.metrics.evaluate import EvalPolicy, evaluate

    def ids(col):
        return pad8(np.char.encode(np.asarray(col).astype(str), "utf-8")) if len(col) else np.zeros(0, dtype="S8")

    rq = _column(run, "qid", _RUN_COLS["qid"], qid_col)
    rd = _column(run, "docid", _RUN_COLS["docid"], docid_col)
    rs = _column(run, "score", _RUN_COLS["score"], score_col).astype(np.float64)
    topics, offsets, rd, rs = _grouped(rq, rd, rs)
    r = Run(topics, offsets, ids(rd), rs, "<run frame>")._deduped("error", None)
    qq = _column(qrels, "qid", _QREL_COLS["qid"], qid_col)
    qd = _column(qrels, "docid", _QREL_COLS["docid"], docid_col)
    ql = _column(qrels, "label", _QREL_COLS["label"], label_col)
    if len(ql) and not np.issubdtype(np.asarray(ql).dtype, np.integer):
        lab = np.asarray(ql, dtype=np.float64)
        if not np.all(lab == np.round(lab)):
            raise ValueError("qrels labels must be integers")
        ql = lab.astype(np.int64)
    qtopics, qoffsets, qd, ql = _grouped(qq, qd, ql)
    q = Qrels(qtopics, qoffsets, ids(qd), np.asarray(ql, dtype=np.int64), "<qrels frame>")
    return evaluate(r, q, measures, policy or EvalPolicy())
