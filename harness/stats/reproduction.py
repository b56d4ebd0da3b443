"""How close a reproduced experiment comes to the original, from per-topic scores: the measures
of repro_eval 0.5.0 (Breuer et al., *How to Measure the Reproducibility of System-oriented IR
Experiments*, SIGIR 2020) that read scores rather than rankings (those are
:mod:`harness.metrics.agreement`'s). An experiment is a baseline run ``b`` and an advanced run
``a``; ``o`` is the original's, ``r`` the reproduction's.

- :func:`rmse`: root mean square error of the per-topic scores, original against reproduced,
  paired by topic; 0 is a perfect reproduction.
- :func:`nrmse`: the RMSE divided by the largest a [0, 1] measure allows given the original's
  scores, ``sqrt(mean(max(o, 1 - o)**2))``: 0 perfect, 1 as far off as possible.
- :func:`effect_ratio`: ``mean(r_a - r_b) / mean(o_a - o_b)``, each mean over the topics its two
  runs share: 1 reproduces the effect exactly, below 1 a smaller effect, above 1 a larger one,
  0 or below none or the opposite one. Undefined (inf or NaN, as numpy divides) when the
  original shows no effect.
- :func:`delta_ri`: the relative improvements' difference, ``(o_a - o_b) / o_b - (r_a - r_b) /
  r_b`` over the runs' mean scores: 0 reproduces the improvement, above 0 a smaller one, below
  0 a larger one.
- :func:`unpaired_t`: the two-sided Student's t-test of two independent samples
  (``scipy.stats.ttest_ind``), repro_eval's test for a replication on other topics; the paired
  test of a reproduction on the same topics is :func:`harness.stats.paired.paired_t`. Either
  way a small p says the reproduced scores differ from the original's.

Degenerate samples follow :mod:`harness.stats`' conventions: equal constant samples give p = 1.0
and different constant samples p = 0.0 where scipy gives NaN.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from harness import lazy

stats = lazy.module("scipy.stats")

__all__ = ["rmse", "nrmse", "effect_ratio", "delta_ri", "unpaired_t"]


def _floats(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def rmse(original, reproduced) -> float:
    """Root mean square error of two score vectors paired by topic.

    >>> rmse([0.5, 0.2], [0.4, 0.4])
    0.15811388300841897
    """
    d = _floats(original) - _floats(reproduced)
    return math.sqrt(float(np.mean(d * d)))


def nrmse(original, reproduced) -> float:
    """:func:`rmse` over its largest value for the original's scores of a [0, 1] measure.

    >>> round(nrmse([0.5, 0.2], [0.4, 0.4]), 4)   # 0.1581 / sqrt((0.5**2 + 0.8**2) / 2)
    0.237
    """
    o = _floats(original)
    worst = np.maximum(o, 1.0 - o)
    return rmse(o, reproduced) / math.sqrt(float(np.mean(worst * worst)))


def effect_ratio(orig_b, orig_a, rep_b, rep_a) -> float:
    """The reproduction's mean improvement over the original's; each pair of vectors is paired
    by topic (the original's topics need not be the reproduction's).

    >>> effect_ratio([0.25, 0.5], [0.75, 1.0], [0.25, 0.5], [0.5, 0.75])   # 0.25 / 0.5
    0.5
    """
    original = np.mean(_floats(orig_a) - _floats(orig_b))
    reproduced = np.mean(_floats(rep_a) - _floats(rep_b))
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(reproduced) / np.float64(original))


def delta_ri(orig_b: float, orig_a: float, rep_b: float, rep_a: float) -> float:
    """Delta relative improvement from the four runs' mean scores.

    >>> round(delta_ri(0.2, 0.3, 0.2, 0.25), 4)   # 0.5 - 0.25
    0.25
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        o = (np.float64(orig_a) - orig_b) / np.float64(orig_b)
        r = (np.float64(rep_a) - rep_b) / np.float64(rep_b)
    return float(o - r)


def unpaired_t(a, b) -> float:
    """Two-sided p-value of Student's t-test of two independent samples:
    ``scipy.stats.ttest_ind(a, b).pvalue``. NaN when there is no degree of freedom (fewer than
    three scores, or an empty sample); constant samples give 1.0 when equal, 0.0 otherwise.

    >>> round(unpaired_t([0.1, 0.2, 0.3], [0.4, 0.5, 0.6]), 4)
    0.0213
    """
    a, b = _floats(a), _floats(b)
    if not len(a) or not len(b) or len(a) + len(b) < 3:
        return math.nan
    if np.all(a == a[0]) and np.all(b == b[0]):
        return 1.0 if a[0] == b[0] else 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy's "catastrophic cancellation" note
        return float(stats.ttest_ind(a, b).pvalue)
