"""Evaluation measures: trec_eval's numbers from pure numpy kernels, plus the course lab API.

>>> from harness.metrics import parse_measure, evaluate
>>> from harness.formats.runs import Run
>>> from harness.formats.qrels import Qrels
>>> run = Run.from_ranked({"q1": (["a", "b", "c"], [3.0, 2.0, 1.0])})
>>> qrels = Qrels.from_dict({"q1": {"b": 1, "c": 0}})
>>> ev = evaluate(run, qrels, [parse_measure("RR"), parse_measure("P@2")])
>>> ev.means
{'RR': 0.5, 'P@2': 0.5}
"""

from harness.metrics.evaluate import EvalPolicy, Evaluation, evaluate
from harness.metrics.lab import (
    average_precision,
    dcg,
    evaluate_frame,
    interpolate,
    ndcg,
    precision,
    rank_by_scores,
    recall,
    reciprocal_rank,
)
from harness.metrics.measures import MEASURES, Measure, parse_measure

__all__ = [
    "Measure",
    "parse_measure",
    "MEASURES",
    "evaluate",
    "EvalPolicy",
    "Evaluation",
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
