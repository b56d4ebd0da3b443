"""The two-way analysis of variance without replication: systems x topics, one score per cell.

Every system answers the same topics, so the topics are a second factor (a block): the model is
``score[t, s] = mu + system[s] + topic[t] + error``, and the table is statsmodels'
``anova_lm(ols("score ~ C(system) + C(topic)", frame).fit())`` (type 1; for this balanced layout
types 1, 2 and 3 give the same sums of squares). With ``n`` topics and ``m`` systems, the grand
mean ``g``, the system means ``s_i`` and the topic means ``t_j``:

====================  ===========================================  =================
source                sum of squares                               df
====================  ===========================================  =================
system                ``n * sum_i (s_i - g)**2``                   ``m - 1``
topic                 ``m * sum_j (t_j - g)**2``                   ``n - 1``
residual              ``sum_ij (x_ij - s_i - t_j + g)**2``         ``(m-1)(n-1)``
====================  ===========================================  =================

Mean squares are sum / df; ``F`` is a factor's mean square over the residual's; ``p`` is
``scipy.stats.f.sf(F, df, df_residual)``. The residual row has no F and no p (NaN, as anova_lm).

The closed form instead of statsmodels' OLS: its design matrix has a dummy column per topic, and
at 50 systems x 1,000 topics (50,000 rows, 1,049 columns) ``ols(...).fit()`` and ``anova_lm``
took 150 to 317 s (80 to 110 s of CPU) where this takes 1.2 ms (bench/bench_tukey.py --ols,
shared 2-core machine). tests/test_stats_anova.py checks both against each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from harness import lazy
from harness.stats import checks

stats = lazy.module("scipy.stats")

__all__ = ["AnovaRow", "Anova", "ANOVA_FIELDS", "two_way_anova"]


@dataclass(frozen=True)
class AnovaRow:
    """One source of variation: its degrees of freedom, sum of squares, mean square, F and p (F
    and p are NaN for the residual). The fields are anova.csv's columns after ``measure``."""

    source: str  # "system", "topic" or "residual"
    df: int
    sum_sq: float
    mean_sq: float
    F: float
    p: float


ANOVA_FIELDS = tuple(f.name for f in fields(AnovaRow))


@dataclass(frozen=True)
class Anova:
    """The two-way ANOVA table of one measure: ``system``, ``topic`` and ``residual`` rows, with
    the systems' names and means (in the caller's order) and the number of topics."""

    systems: tuple[str, ...]
    means: tuple[float, ...]
    topics: int
    system: AnovaRow
    topic: AnovaRow
    residual: AnovaRow

    @property
    def rows(self) -> tuple[AnovaRow, AnovaRow, AnovaRow]:
        """The table's rows in anova_lm's order: system, topic, residual."""
        return (self.system, self.topic, self.residual)

    @property
    def within_system_variance(self) -> float:
        """The pooled variance of a system's scores over the topics, ``sum_ij (x_ij - s_i)**2 /
        (m (n - 1))``: a one-way ANOVA's residual mean square, topic variance included (the
        variance Sakai's ANOVA-based topic set size design needs, harness.stats.power)."""
        m = len(self.systems)
        return (self.topic.sum_sq + self.residual.sum_sq) / (m * (self.topics - 1))


def two_way_anova(scores, systems) -> Anova:
    """The two-way ANOVA without replication of a topics x systems matrix of one measure's
    scores (``scores[t, s]``: system ``systems[s]`` on topic ``t``).

    >>> import numpy as np
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.6, 0.7], [0.1, 0.3, 0.2], [0.4, 0.8, 0.6]])
    >>> a = two_way_anova(x, ["bm25", "ql", "rm3"])
    >>> [(r.source, r.df, round(r.sum_sq, 4), round(r.F, 3)) for r in a.rows[:2]]
    [('system', 2, 0.105, 9.0), ('topic', 3, 0.3825, 21.857)]
    >>> round(a.system.p, 4), a.residual.df
    (0.0156, 6)

    Identical systems give a system sum of squares of exactly 0, so F 0 and p 1.0 (or F NaN
    and p 1.0 when nothing varies at all); a residual of exactly 0 with differing systems gives F
    infinite and p 0.0 (no noise at all against the differences).
    """
    x, names = checks.matrix(scores, systems)
    n, m = x.shape
    grand = x.mean()
    sys_means = x.mean(axis=0)
    topic_means = x.mean(axis=1)
    ss_sys = float(n * _squares(sys_means))
    ss_topic = float(m * _squares(topic_means))
    resid = x - sys_means[None, :] - topic_means[:, None] + grand
    ss_res = float(np.sum(resid**2))
    df_sys, df_topic, df_res = m - 1, n - 1, (m - 1) * (n - 1)
    ms_res = ss_res / df_res

    def row(source: str, ss: float, df: int) -> AnovaRow:
        ms = ss / df
        if ms_res > 0:
            f = ms / ms_res
            return AnovaRow(source, df, ss, ms, f, float(stats.f.sf(f, df, df_res)))
        # no residual variation: any variation of the factor is infinitely significant
        return AnovaRow(source, df, ss, ms, *((math.inf, 0.0) if ms > 0 else (math.nan, 1.0)))

    return Anova(
        systems=names,
        means=tuple(float(v) for v in sys_means),
        topics=n,
        system=row("system", ss_sys, df_sys),
        topic=row("topic", ss_topic, df_topic),
        residual=AnovaRow("residual", df_res, ss_res, ms_res, math.nan, math.nan),
    )


def _squares(means: np.ndarray) -> float:
    """``sum (means - mean(means))**2``, exactly 0 when the means are equal: computed on the
    differences from the first mean (the grand mean of equal floats need not equal them)."""
    d = means - means[0]
    return float(np.sum((d - d.mean()) ** 2))
