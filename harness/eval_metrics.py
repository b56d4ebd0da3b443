"""The course's evaluation helpers, by their names and in their argument order.

A lab notebook that starts with ``from eval_metrics import precision_at_k, recall_at_k,
average_precision, mean_average_precision, ndcg_at_k, mrr`` runs unchanged after replacing that
line with ``from harness.eval_metrics import ...``. Each function takes the relevance labels of
one ranked list, rank 1 first (``mean_average_precision`` and ``mrr`` take a list of such lists,
one per query), and follows the lab's conventions (the lab's own reference cases are its tests). Where trec_eval differs, the difference is stated:

=========================  ==========================================  ==========================================
function                   the lab's convention (this module)          trec_eval (``harness.evaluate``)
=========================  ==========================================  ==========================================
``precision_at_k(r, k)``   relevant in the top k / min(k, len(r))      / k, even when fewer docs are returned
``recall_at_k(r, k)``      relevant in the top k / relevant labels in  / relevant judged docs of the topic
                           the list (or ``R``); 0 when there are none  (``num_rel``)
``average_precision(r)``   sum of precision at each relevant rank      the same sum / relevant judged docs
                           (within the top k) / relevant in the list
                           (or ``R``)
``ndcg_at_k(r, k)``        DCG@k / DCG@k of the same labels sorted;    the ideal ranks every judged doc of the
                           gain = label, discount log2(rank + 1)       topic, not only the retrieved ones
``mrr(rs, k)``             mean over queries of 1 / rank of the first  the same (``recip_rank``), averaged over
                           relevant label in the top k (0 if none)     judged topics
=========================  ==========================================  ==========================================

A label counts as relevant when it is >= 1 (``rel=`` changes that), as in trec_eval.

>>> precision_at_k([1, 0, 0, 0, 1, 0, 0, 1, 1, 1], 4)
0.25
>>> mrr([[0, 0, 1], [1, 0, 0], [0, 0, 0]])
0.4444444444444444
>>> round(ndcg_at_k([2, 3, 1, 4, 0], 5), 2)
0.84
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

__all__ = [
    "precision_at_k",
    "recall_at_k",
    "average_precision",
    "mean_average_precision",
    "ndcg_at_k",
    "dcg_at_k",
    "reciprocal_rank",
    "mrr",
    "interpolate",
    "precision",
    "recall",
    "dcg",
    "ndcg",
]

# ------------------------------------------------------------------------------ one ranked list
# The building blocks, with the conventions as parameters: ``precision(labels, k)`` divides by
# min(k, len(labels)) (``short_list="lab"``) or by k (``short_list="trec_eval"``); ``recall``
# divides by the relevant labels in the list unless ``R`` (trec_eval's num_rel) is given;
# ``ndcg`` takes ``ideal_labels`` (every judged label of the topic gives trec_eval's ideal).


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


def _gain(a, gain):
    a = np.where(a > 0, a, 0.0)
    if gain == "linear":
        return a
    if gain == "exp":
        return np.exp2(a) - 1.0
    raise ValueError(f"gain must be 'linear' or 'exp' (got {gain!r})")


def dcg(labels: Sequence[float] | np.ndarray, k: int | None = None, *, gain: str = "linear") -> float:
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


# ------------------------------------------------------------------------------ the course's names
def precision_at_k(relevances: Sequence[float], k: int, *, rel: int = 1) -> float:
    """Relevant labels (>= rel) in the top k, divided by ``min(k, len(relevances))``."""
    return float(precision(relevances, k, rel=rel))


def recall_at_k(relevances: Sequence[float], k: int, R: int | None = None, *, rel: int = 1) -> float:
    """Relevant labels in the top k / R; R defaults to the relevant labels in the whole list
    (pass the topic's number of relevant documents for trec_eval's recall); 0 when R is 0."""
    return float(recall(relevances, k, rel=rel, R=R))


def average_precision(
    relevances: Sequence[float], k: int | None = None, R: int | None = None, *, rel: int = 1
) -> float:
    """Sum of precision@rank over the relevant ranks within the top k (all ranks by default),
    divided by R (default: the relevant labels in the whole list; 0 when there are none)."""
    a = _labels(relevances)
    rel_mask = a >= rel
    R = int(np.count_nonzero(rel_mask)) if R is None else R
    ranks = np.flatnonzero(rel_mask[: _k(k, len(a))]) + 1
    if not R:
        return 0.0
    return float(np.sum(np.arange(1, len(ranks) + 1) / ranks)) / R


def _lists(rankings) -> list:
    if isinstance(rankings, Mapping):
        rankings = list(rankings.values())
    rankings = list(rankings)
    if rankings and not isinstance(rankings[0], Iterable):
        raise ValueError(
            "expected one list of labels per query, e.g. [[1, 0, 1], [0, 1, 0]] (got a flat list; "
            "for one query use average_precision / reciprocal_rank)"
        )
    return rankings


def mean_average_precision(rankings, k: int | None = None, *, rel: int = 1) -> float:
    """Mean of :func:`average_precision` over queries: ``rankings`` is a list of label lists (or
    a dict query -> labels). 0.0 for no queries."""
    lists = _lists(rankings)
    return sum(average_precision(r, k, rel=rel) for r in lists) / len(lists) if lists else 0.0


def dcg_at_k(relevances: Sequence[float], k: int, *, gain: str = "linear") -> float:
    """Sum over the top k of gain(label) / log2(rank + 1); linear gain = the label (trec_eval's),
    ``gain="exp"`` uses 2**label - 1."""
    return float(dcg(relevances, k, gain=gain))


def ndcg_at_k(relevances: Sequence[float], k: int, *, gain: str = "linear") -> float:
    """DCG@k / DCG@k of the same labels sorted descending; 0 when that ideal is 0."""
    return float(ndcg(relevances, k, gain=gain))


def reciprocal_rank(relevances: Sequence[float], k: int | None = None, *, rel: int = 1) -> float:
    """1 / rank of the first relevant label within the top k; 0 if there is none."""
    a = _labels(relevances)
    hit = np.flatnonzero(a[: _k(k, len(a))] >= rel)
    return 1.0 / float(hit[0] + 1) if len(hit) else 0.0


def mrr(rankings, k: int | None = None, *, rel: int = 1) -> float:
    """Mean reciprocal rank over queries: ``rankings`` is a list of label lists (or a dict
    query -> labels). 0.0 for no queries."""
    lists = _lists(rankings)
    return sum(reciprocal_rank(r, k, rel=rel) for r in lists) / len(lists) if lists else 0.0


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
