"""The course's evaluation helpers, by their names and in their argument order.

A lab notebook that starts with ``from eval_metrics import precision_at_k, recall_at_k,
average_precision, mean_average_precision, ndcg_at_k, mrr`` runs unchanged after replacing that
line with ``from harness.eval_metrics import ...``. Each function takes the relevance labels of
one ranked list, rank 1 first (``mean_average_precision`` and ``mrr`` take a list of such lists,
one per query), and follows the lab's conventions (:mod:`harness.metrics.lab`; the lab's own
reference cases are its tests). Where trec_eval differs, the difference is stated:

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

from harness.metrics import lab

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
]


def precision_at_k(relevances: Sequence[float], k: int, *, rel: int = 1) -> float:
    """Relevant labels (>= rel) in the top k, divided by ``min(k, len(relevances))``."""
    return float(lab.precision(relevances, k, rel=rel))


def recall_at_k(relevances: Sequence[float], k: int, R: int | None = None, *, rel: int = 1) -> float:
    """Relevant labels in the top k / R; R defaults to the relevant labels in the whole list
    (pass the topic's number of relevant documents for trec_eval's recall); 0 when R is 0."""
    return float(lab.recall(relevances, k, rel=rel, R=R))


def average_precision(
    relevances: Sequence[float], k: int | None = None, R: int | None = None, *, rel: int = 1
) -> float:
    """Sum of precision@rank over the relevant ranks within the top k (all ranks by default),
    divided by R (default: the relevant labels in the whole list; 0 when there are none)."""
    return float(lab.average_precision(relevances, k, R, rel=rel))


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
    return float(lab.dcg(relevances, k, gain=gain))


def ndcg_at_k(relevances: Sequence[float], k: int, *, gain: str = "linear") -> float:
    """DCG@k / DCG@k of the same labels sorted descending; 0 when that ideal is 0."""
    return float(lab.ndcg(relevances, k, gain=gain))


def reciprocal_rank(relevances: Sequence[float], k: int | None = None, *, rel: int = 1) -> float:
    """1 / rank of the first relevant label within the top k; 0 if there is none."""
    return float(lab.reciprocal_rank(relevances, k, rel=rel))


def mrr(rankings, k: int | None = None, *, rel: int = 1) -> float:
    """Mean reciprocal rank over queries: ``rankings`` is a list of label lists (or a dict
    query -> labels). 0.0 for no queries."""
    lists = _lists(rankings)
    return sum(reciprocal_rank(r, k, rel=rel) for r in lists) / len(lists) if lists else 0.0


def interpolate(precision: Sequence[float], recall: Sequence[float], recall_levels: Sequence[float]) -> list[float]:
    """For each recall level r, the highest precision observed at any recall >= r (0 if none)."""
    return lab.interpolate(precision, recall, recall_levels)
