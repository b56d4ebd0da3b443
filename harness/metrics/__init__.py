"""Evaluation measures with trec_eval's numbers, from pure numpy kernels.

>>> from harness.metrics import parse_measure, evaluate
>>> from harness.formats.run import Run
>>> from harness.formats.qrels import Qrels
>>> run = Run.from_ranked({"q1": (["a", "b", "c"], [3.0, 2.0, 1.0])})
>>> qrels = Qrels.from_dict({"q1": {"b": 1, "c": 0}})
>>> ev = evaluate(run, qrels, [parse_measure("RR"), parse_measure("P@2")])
>>> ev.means
{'RR': 0.5, 'P@2': 0.5}

Only trec_eval's convention lives here; the course lab's (P@k over min(k, labels), ...) is
:mod:`harness.eval_metrics`.
"""

import warnings

from harness import eval_metrics
from harness.metrics.evaluate import EvalPolicy, Evaluation, evaluate
from harness.metrics.measures import MEASURES, Measure, parse_measure, parse_measures

__all__ = ["Measure", "parse_measure", "parse_measures", "MEASURES", "evaluate", "EvalPolicy", "Evaluation"]

# The course lab's functions were exported here before; they live in harness.eval_metrics.
_MOVED = ("precision", "recall", "reciprocal_rank", "dcg", "ndcg", "average_precision", "interpolate")


def __getattr__(name: str):
    if name in _MOVED:
        warnings.warn(
            f"harness.metrics.{name} follows the course lab's convention and moved to harness.eval_metrics.{name}; "
            "this alias goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(eval_metrics, name)
    raise AttributeError(f"module 'harness.metrics' has no attribute {name!r}")
