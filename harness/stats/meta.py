"""Meta-analysis across collections: one comparison (a run against a baseline on one measure)
measured on several collections, combined into one effect with its interval.

Each collection contributes an effect ``y_i`` and its variance ``v_i`` from the per-topic
differences ``d = run - baseline`` of its n topics (:func:`paired_effect`, policies.META_EFFECTS):

- ``raw`` (the default): ``y = mean(d)``, ``v = var(d) / n`` (sample variance, ddof=1): the mean
  difference in the measure's own units, what IR papers report ("+0.021 AP"), and the squared
  standard error of the mean difference. Pooling it assumes the collections' scores are on one
  scale, which holds for one measure with judgments of a similar kind.
- ``standardized``: ``y = d_z = mean(d) / sd(d)``, ``v = 1/n + d_z**2 / (2n)`` (the large-sample
  variance of d_z: Borenstein, Hedges, Higgins and Rothstein, *Introduction to Meta-Analysis*,
  2009, ch. 4, whose matched-groups d has ``(1/n + d**2/(2n)) 2(1 - r)``, d_z being
  ``d / sqrt(2(1 - r))``): the difference in units of the differences' spread, comparable across
  collections whose scores differ in scale or spread (deep judgments against shallow ones,
  graded against binary), at the price of an effect no longer in the measure's units.

They are combined by inverse-variance weighting (DerSimonian & Laird, "Meta-analysis in clinical
trials", Controlled Clinical Trials 7, 1986; applied to IR by Soboroff, "Meta-analysis for
retrieval experiments involving multiple test collections", CIKM 2018):

- fixed effect (one true effect): ``w_i = 1/v_i``, ``mu = sum w y / sum w``, ``var = 1/sum w``;
- ``Q = sum w_i (y_i - mu)**2`` on ``k - 1`` degrees of freedom (heterogeneity; its p by chi2),
  ``I2 = max(0, (Q - (k-1)) / Q)`` (Higgins & Thompson 2002), the share of the variation between
  collections beyond chance;
- random effects (each collection's true effect drawn around mu with variance tau2):
  ``w*_i = 1/(v_i + tau2)``, ``mu* = sum w* y / sum w*``, ``var* = 1/sum w*``, with tau2 by
  DerSimonian-Laird (``"dl"``, the default: ``max(0, (Q - (k-1)) / (sum w - sum w**2 / sum w))``)
  or Paule-Mandel (``"pm"``: the tau2 >= 0 at which ``sum w*_i (y_i - mu*)**2 = k - 1``, solved
  to float precision; 0 when even tau2 = 0 gives less);
- confidence intervals ``estimate +- z * sqrt(variance)``, ``z`` the normal quantile of
  ``(1 + level) / 2``, for every collection and both pooled effects.

This equals statsmodels' ``combine_effects(y, v, method_re="dl" or "pm")`` (tests/test_stats_meta.py)
except where statsmodels 0.15 departs from DerSimonian & Laird: it does not truncate the
DerSimonian-Laird tau2 at 0, so with Q < k - 1 (collections agreeing more than chance predicts)
its tau2 is negative, its random-effects mean leaves the range of the effects and its interval is
NaN; nor I2 at 0 (it reports -258 where I2 is 0); and its Paule-Mandel iteration returns tau2 =
0 when a step lands past the root by float noise (which a tolerance tighter than its default makes
likely). That, not speed, is why this is computed here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harness import lazy
from harness.errors import DataError
from harness.policies import META_EFFECTS, META_METHODS, META_POOLED, StatsPolicy
from harness.stats import checks

stats = lazy.module("scipy.stats")
optimize = lazy.module("scipy.optimize")

FIXED, RANDOM = META_POOLED  # the pooled estimates' names (Pooled.model)

__all__ = ["CollectionEffect", "Pooled", "MetaAnalysis", "no_effect", "paired_effect", "combine", "meta_analysis"]


@dataclass(frozen=True)
class CollectionEffect:
    """One collection's effect, its variance and its confidence interval."""

    collection: str
    effect: float
    variance: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class Pooled:
    """A combined effect: ``model`` is "fixed" or "random" (policies.META_POOLED)."""

    model: str
    effect: float
    variance: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class MetaAnalysis:
    """The combination of one comparison over collections: each collection's effect, the fixed
    and random-effects estimates, and the heterogeneity (Q on ``df`` degrees of freedom, its
    chi-square p, I2 and tau2 by ``method``, a key of policies.META_METHODS)."""

    collections: tuple[CollectionEffect, ...]
    fixed: Pooled
    random: Pooled
    Q: float
    df: int
    p_heterogeneity: float
    I2: float
    tau2: float
    method: str
    level: float


def no_effect(run, baseline) -> str | None:
    """Why ``run - baseline`` over one collection's topics has no effect with a variance to pool,
    None when it has one: fewer than 2 topics, or differences all equal (to within 1e-9 of their
    largest magnitude: the same difference computed from other scores can differ in its last
    bits), whose variance is 0 and inverse-variance weight infinite.

    >>> no_effect([0.4, 0.8, 0.2], [0.3, 0.7, 0.1]), no_effect([0.5, 0.4], [0.4, 0.4])
    ('differences all equal, so variance 0 and an infinite weight', None)
    """
    return _no_effect(checks.diff(run, baseline))


def _no_effect(d: np.ndarray) -> str | None:
    if d.size < 2:
        return "fewer than 2 topics"
    if float(np.ptp(d)) <= 1e-9 * float(np.abs(d).max()):
        return "differences all equal, so variance 0 and an infinite weight"
    return None


def paired_effect(run, baseline, effect: str = "raw") -> tuple[float, float]:
    """(effect, variance) of ``run - baseline`` over one collection's topics, as ``effect`` (a key
    of policies.META_EFFECTS) defines them; a DataError where :func:`no_effect` says why there is none.

    >>> [round(v, 6) for v in paired_effect([0.5, 0.4, 0.9, 0.3], [0.4, 0.4, 0.6, 0.2])]
    [0.125, 0.003958]
    >>> [round(v, 4) for v in paired_effect([0.5, 0.4, 0.9, 0.3], [0.4, 0.4, 0.6, 0.2], "standardized")]
    [0.9934, 0.3734]
    """
    effect = checks.one_of("effect", effect, META_EFFECTS)
    d = checks.diff(run, baseline)
    n = d.size
    if n < 2:
        raise DataError("paired scores", f"an effect and its variance need at least 2 topics (got {n})")
    if _no_effect(d) is not None:
        raise DataError(
            "paired scores",
            f"the {n} differences are all {float(d[0])!r}: with no spread the effect's variance is 0 "
            "and its inverse-variance weight infinite; leave this comparison out of the meta-analysis",
        )
    sd = float(d.std(ddof=1))
    mean = float(d.mean())
    if not META_EFFECTS[effect].standardized:
        return mean, sd * sd / n
    dz = mean / sd
    return dz, 1 / n + dz * dz / (2 * n)


def combine(
    effects,
    variances,
    collections: Sequence[str] | None = None,
    method: str = "dl",
    level: float = StatsPolicy.ci_level,
) -> MetaAnalysis:
    """Fixed and random-effects combination of the collections' ``effects`` with their
    ``variances`` (``collections``: their names, default "1", "2", ...), tau2 by ``method``.

    >>> m = combine([0.02, 0.05, -0.01], [1e-4, 2e-4, 1.5e-4], ["robust04", "core17", "covid"])
    >>> round(m.fixed.effect, 4), round(m.random.effect, 4), round(m.I2, 3), round(m.tau2, 6)
    (0.0177, 0.0194, 0.807, 0.000606)
    """
    method = checks.one_of("method", method, META_METHODS)
    level = checks.probability("level", level)
    y = np.asarray(effects, dtype=np.float64)
    v = np.asarray(variances, dtype=np.float64)
    if y.ndim != 1 or v.shape != y.shape:
        raise ValueError(f"one effect and one variance per collection (got shapes {y.shape} and {v.shape})")
    k = y.size
    names = tuple(str(i + 1) for i in range(k)) if collections is None else tuple(collections)
    if len(names) != k or len(set(names)) != k:
        raise ValueError(f"one distinct name per collection ({k} effects, names {names!r})")
    if k < 2:
        raise DataError("meta-analysis", f"combining needs at least 2 collections (got {k})")
    for i in range(k):
        if not (math.isfinite(y[i]) and math.isfinite(v[i]) and v[i] > 0):
            raise DataError(
                f"collection {names[i]!r}",
                f"an effect must be finite and its variance finite and > 0 (got {y[i]!r}, {v[i]!r})",
            )
    z = float(stats.norm.isf((1 - level) / 2))
    w = 1 / v
    fixed = float(np.sum(w * y) / np.sum(w))
    q = float(np.sum(w * (y - fixed) ** 2))
    df = k - 1
    if method == "dl":
        tau2 = max(0.0, (q - df) / float(np.sum(w) - np.sum(w * w) / np.sum(w)))
    else:
        tau2 = _paule_mandel(y, v)
    ws = 1 / (v + tau2)
    random = float(np.sum(ws * y) / np.sum(ws))

    def pooled(model: str, mu: float, var: float) -> Pooled:
        half = z * math.sqrt(var)
        return Pooled(model, mu, var, mu - half, mu + half)

    return MetaAnalysis(
        collections=tuple(
            CollectionEffect(
                names[i], float(y[i]), float(v[i]), float(y[i] - z * v[i] ** 0.5), float(y[i] + z * v[i] ** 0.5)
            )
            for i in range(k)
        ),
        fixed=pooled(FIXED, fixed, float(1 / np.sum(w))),
        random=pooled(RANDOM, random, float(1 / np.sum(ws))),
        Q=q,
        df=df,
        p_heterogeneity=float(stats.chi2.sf(q, df)),
        I2=max(0.0, (q - df) / q) if q > 0 else 0.0,
        tau2=tau2,
        method=method,
        level=level,
    )


def meta_analysis(
    scores: Mapping[str, tuple[object, object]],
    effect: str = "raw",
    method: str = "dl",
    level: float = StatsPolicy.ci_level,
) -> MetaAnalysis:
    """The meta-analysis of one comparison: ``scores[collection] = (run, baseline)``, the two
    per-topic score vectors on that collection (paired by topic), in the mapping's order."""
    names = list(scores)
    pairs = []
    for name in names:
        run, baseline = scores[name]
        try:
            pairs.append(paired_effect(run, baseline, effect))
        except DataError as e:
            raise DataError(f"collection {name!r}", str(e).split(": ", 1)[1]) from None
    return combine([p[0] for p in pairs], [p[1] for p in pairs], names, method, level)


def _paule_mandel(y: np.ndarray, v: np.ndarray) -> float:
    """Paule-Mandel's tau2: the root in tau2 >= 0 of ``sum (y - mu*)**2 / (v + tau2) = k - 1``
    (the left side decreases in tau2), 0 when the left side is already below at tau2 = 0."""
    df = y.size - 1

    def excess(tau2: float) -> float:
        w = 1 / (v + tau2)
        mu = np.sum(w * y) / np.sum(w)
        return float(np.sum(w * (y - mu) ** 2)) - df

    if excess(0.0) <= 0:
        return 0.0
    high = float(np.var(y, ddof=1)) + float(v.max())
    while excess(high) > 0:  # terminates: the excess tends to -df as tau2 grows
        high *= 2
    return float(optimize.brentq(excess, 0.0, high, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500))
