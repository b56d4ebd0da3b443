"""Power and topic set size: how small a difference a collection can detect, and how many topics
a difference needs.

**A paired comparison** (the paired t-test, two-sided, at ``alpha``): with n topics and the
standard deviation ``sd`` of the per-topic differences, a true mean difference ``delta`` is
detected with probability ``power(delta / sd, n)``, where for the standardised effect d
``power = P(|T| > t_crit)``, ``T`` noncentral t with ``n - 1`` degrees of freedom and
noncentrality ``d * sqrt(n)``, ``t_crit = t.isf(alpha / 2, n - 1)`` (statsmodels'
``TTestPower``). :func:`paired_power` gives

- ``detectable_difference``: the smallest ``delta`` detected with probability ``power`` at the
  collection's n (``TTestPower().solve_power(nobs=n, alpha=alpha, power=power) * sd``);
- ``topics_needed``: the fewest topics detecting ``difference`` with probability ``power``
  (``ceil(TTestPower().solve_power(effect_size=difference / sd, ...))``, at least 2).

The sd is the one observed on the collection, so both answer "with differences as noisy as
these" (Sakai's t-test-based topic set size design, IRJ 19(3), 2016, with the variance of the
differences estimated from the pilot runs themselves).

**Many systems** (Sakai's ANOVA-based design, same paper, after Nagata): m systems
compared by a one-way ANOVA on n topics each should detect, with probability ``power``, any set
of system means whose range (best minus worst) is at least ``D``. The hardest such set has two
systems ``D`` apart and the others at their midpoint, where ``sum_i (mu_i - mu)**2 = D**2 / 2``.
With ``sigma**2`` the within-system variance, Sakai's noncentrality is ``lambda = n * D**2 /
(2 sigma**2)`` on ``m - 1`` and ``m (n - 1)`` degrees of freedom. In statsmodels'
``FTestAnovaPower`` terms (Cohen's ``f``, ``nobs`` the total, ``nc = f**2 * nobs``, ``df =
(k_groups - 1, nobs - k_groups)``) that is exactly

    f = D / sqrt(2 * m * sigma**2),  nobs = m * n,  k_groups = m.

``sigma**2`` defaults to the pooled within-system variance of the pilot scores,
``sum_ij (x_ij - mean_i)**2 / (m (n - 1))``: the residual mean square of the one-way ANOVA
whose power this is (topic variance included, as in an unpaired design), and what Sakai's
paper estimates from topic-by-run matrices ("the within-system variance"). Sakai's Excel tools
approximate the noncentral F (Nagata's normal approximation); this uses the exact distribution,
so a topic count can differ from theirs by one.

Computed here with scipy's noncentral t and F (the functions statsmodels calls), vectorised
over all pairs, because statsmodels is slow and fragile at this: its ``solve_power`` took 2.5 ms
a pair for the topics needed against 0.014 ms here (174x; 1,225 pairs, bench/bench_power.py,
shared 2-core machine), 3 minutes instead of 1 s for all pairs of 50 runs on 13 collections and
5 measures; importing ``statsmodels.stats.power`` takes 1.7 s (it loads pandas); its root finder
gives up at 2 or 3 topics and alpha 0.01 (returning its start value) and stops short of the root
(2e-5 relative at 1,000 topics), and its ``ttest_power`` is NaN where scipy's lower tail is.
tests/test_stats_power.py checks every figure against statsmodels where it converged and against
the definition everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from harness import lazy
from harness.policies import DEFAULT_DIFFERENCE, DEFAULT_POWER, StatsPolicy
from harness.stats import checks
from harness.stats.anova import Anova

stats = lazy.module("scipy.stats")
special = lazy.module("scipy.special")
optimize = lazy.module("scipy.optimize")

__all__ = [
    "PairedPower",
    "AnovaPower",
    "PowerRow",
    "POWER_FIELDS",
    "power_rows",
    "anova_power_row",
    "t_power",
    "detectable_effect",
    "topics_needed",
    "paired_power",
    "anova_power",
    "f_power",
]

# The most topics a design may ask for: beyond it "topics needed" is reported as this bound
# (a difference 10**-4 standard deviations wide needs about 8 * 10**8 topics).
MAX_TOPICS = 10**12


@dataclass(frozen=True)
class PairedPower:
    """The power analysis of one paired comparison (power.csv's columns after measure,
    baseline and run)."""

    topics: int
    sd: float  # of the per-topic differences, ddof=1
    alpha: float
    power: float
    detectable_difference: float  # smallest mean difference detected at this many topics
    difference: float
    topics_needed: int  # fewest topics detecting `difference`


@dataclass(frozen=True)
class AnovaPower:
    """Sakai's ANOVA-based design for ``systems`` systems: the smallest range of system means
    detected at ``topics`` topics, and the topics needed for a range of ``difference``."""

    systems: int
    topics: int
    variance: float  # the within-system variance sigma**2
    alpha: float
    power: float
    detectable_range: float
    difference: float
    topics_needed: int


@dataclass(frozen=True)
class PowerRow:
    """One row of power.csv: a paired comparison's power analysis (:class:`PairedPower`), or,
    with ``baseline`` and ``run`` None (written blank), the ANOVA design's over every compared run
    (:class:`AnovaPower`: ``sd`` the square root of its within-system variance,
    ``detectable_difference`` the smallest detectable range of the system means)."""

    measure: str
    baseline: str | None
    run: str | None
    topics: int
    sd: float
    alpha: float
    power: float
    detectable_difference: float
    difference: float
    topics_needed: int


# The columns of power.csv and of the API's power tables, in PowerRow's order.
POWER_FIELDS = tuple(f.name for f in fields(PowerRow))


def power_rows(
    measure: str,
    pairs: Sequence[tuple[str, str]],
    differences: Sequence[np.ndarray],
    alpha: float = StatsPolicy.alpha,
    power: float = DEFAULT_POWER,
    difference: float = DEFAULT_DIFFERENCE,
) -> list[PowerRow]:
    """The power row of each (baseline, run) pair of one measure from its per-topic differences
    (``run - baseline``, every pair on the same topics): :func:`paired_power` of each, with the
    detectable effect solved once for the topics they share and the topics needed searched for
    all pairs at once (the 1,225 pairs of 50 runs on 1,000 topics: 0.65 s, against 1.5 s for
    paired_power pair by pair, with the same figures; at a load of 6.8 on 2 cores)."""
    if len(pairs) != len(differences):
        raise ValueError(f"{len(pairs)} pairs but {len(differences)} vectors of differences")
    if not pairs:
        return []
    d = np.array([checks.vector(v, f"differences of {b!r} and {r!r}") for (b, r), v in zip(pairs, differences)])
    n = d.shape[1]
    if n < 2:
        raise ValueError(f"the paired t-test needs at least 2 topics (got {n})")
    alpha, power = checks.probability("alpha", alpha), checks.probability("power", power)
    difference = _positive("difference", difference)
    sd = d.std(axis=1, ddof=1)
    effect = detectable_effect(n, alpha, power)
    with np.errstate(divide="ignore"):
        needed = topics_needed(np.where(sd > 0, difference / np.where(sd > 0, sd, 1), math.inf), alpha, power)
    return [
        PowerRow(measure, b, r, n, float(s), alpha, power, effect * float(s), difference, int(k))
        for (b, r), s, k in zip(pairs, sd, needed)
    ]


def anova_power_row(
    measure: str,
    anova: Anova,
    alpha: float = StatsPolicy.alpha,
    power: float = DEFAULT_POWER,
    difference: float = DEFAULT_DIFFERENCE,
) -> PowerRow:
    """The ANOVA design's row of one measure (:func:`anova_power` of its table)."""
    a = anova_power(anova, alpha=alpha, power=power, difference=difference)
    return PowerRow(
        measure,
        None,
        None,
        a.topics,
        math.sqrt(a.variance),
        a.alpha,
        a.power,
        a.detectable_range,
        a.difference,
        a.topics_needed,
    )


def t_power(effect, topics, alpha: float = StatsPolicy.alpha):
    """Power of the two-sided paired t-test for a standardised effect (mean difference over sd of
    the differences) with ``topics`` topics: statsmodels' ``ttest_power``. Vectorised."""
    d = np.abs(np.asarray(effect, dtype=np.float64))
    n = np.asarray(topics, dtype=np.float64)
    df = n - 1
    crit = stats.t.isf(alpha / 2, df)
    nc = d * np.sqrt(n)
    # The lower tail P(T < -t_crit) is below P(T < 0) = Phi(-nc); where scipy's nctdtr returns NaN
    # for it (large noncentrality on few degrees of freedom: nctdtr(1, 8, -12.7), Phi(-8) = 6e-16)
    # it counts as 0. statsmodels' ttest_power returns NaN there.
    lower = np.nan_to_num(special.nctdtr(df, nc, -crit), nan=0.0)
    return np.where(np.isinf(nc), 1.0, 1 - special.nctdtr(df, nc, crit) + lower)  # no spread: certain


def detectable_effect(topics: int, alpha: float = StatsPolicy.alpha, power: float = DEFAULT_POWER) -> float:
    """The smallest standardised effect the paired t-test detects with probability ``power`` at
    ``topics`` topics (statsmodels' ``TTestPower().solve_power(nobs=topics, ...)``)."""
    n = checks.count("topics", topics, 2, MAX_TOPICS)
    alpha, power = checks.probability("alpha", alpha), checks.probability("power", power)
    if power <= alpha:  # the power at effect 0 is alpha already
        return 0.0
    high = 1.0
    while t_power(high, n, alpha) < power:
        high *= 2
    return float(optimize.brentq(lambda d: t_power(d, n, alpha) - power, 0.0, high, xtol=1e-15, rtol=1e-14))


def topics_needed(effect, alpha: float = StatsPolicy.alpha, power: float = DEFAULT_POWER) -> np.ndarray:
    """For each standardised effect, the fewest topics (at least 2) at which the paired t-test
    detects it with probability ``power``: ``ceil`` of statsmodels' ``solve_power(effect_size=...)``.
    An infinite effect (differences with no spread) needs 2; an effect of 0 is never detected
    and gets :data:`MAX_TOPICS`. Vectorised: each step evaluates the power of every effect still
    open at once."""
    alpha, power = checks.probability("alpha", alpha), checks.probability("power", power)
    shape = np.shape(effect)
    d = np.abs(np.asarray(effect, dtype=np.float64)).ravel()
    # Guenther's normal approximation, n = ((z_a + z_b) / d)**2 + z_a**2 / 2, is usually exact or
    # one off: try it and one fewer, and search (double, then bisect) only where it is not.
    za, zb = float(stats.norm.isf(alpha / 2)), float(stats.norm.isf(1 - power))
    with np.errstate(divide="ignore", over="ignore"):
        guess = np.ceil(((za + zb) / d) ** 2 + za * za / 2)
    high = np.clip(np.nan_to_num(guess, nan=MAX_TOPICS, posinf=MAX_TOPICS), 2, MAX_TOPICS)
    low = high - 1  # invariant from here: power(high) >= power > power(low), or low = 1
    short = t_power(d, high, alpha) < power
    while short.any():  # the guess was too few: double until enough
        low[short] = high[short]
        high[short] = np.minimum(high[short] * 2, MAX_TOPICS)
        short &= high < MAX_TOPICS
        short[short] = t_power(d[short], high[short], alpha) < power
    over = low >= 2
    over[over] = t_power(d[over], low[over], alpha) >= power
    low[over] = 1  # the guess was more than needed: bisect below it
    while True:
        open_ = high - low > 1
        if not open_.any():
            break
        mid = np.floor((low + high) / 2)
        ok = np.zeros_like(open_)
        ok[open_] = t_power(d[open_], mid[open_], alpha) >= power
        high = np.where(open_ & ok, mid, high)
        low = np.where(open_ & ~ok, mid, low)
    return high.astype(np.int64).reshape(shape)


def paired_power(
    run,
    baseline,
    alpha: float = StatsPolicy.alpha,
    power: float = DEFAULT_POWER,
    difference: float = DEFAULT_DIFFERENCE,
) -> PairedPower:
    """The power analysis of ``run`` against ``baseline`` (per-topic scores paired by topic).

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> base = rng.uniform(0, 1, 50)
    >>> p = paired_power(base + rng.normal(0.02, 0.1, 50), base)
    >>> round(p.sd, 4), round(p.detectable_difference, 4), p.topics_needed
    (0.0837, 0.0338, 25)
    """
    d = checks.diff(run, baseline)
    n = d.size
    if n < 2:
        raise ValueError(f"the paired t-test needs at least 2 topics (got {n})")
    difference = _positive("difference", difference)
    sd = float(d.std(ddof=1))
    detectable = detectable_effect(n, alpha, power) * sd
    with np.errstate(divide="ignore"):
        needed = int(topics_needed(difference / sd if sd > 0 else math.inf, alpha, power))
    return PairedPower(n, sd, float(alpha), float(power), detectable, float(difference), needed)


def f_power(effect, systems: int, topics, alpha: float = StatsPolicy.alpha):
    """Power of the one-way ANOVA's F test with ``systems`` groups of ``topics`` observations for
    Cohen's ``effect`` f: statsmodels' ``FTestAnovaPower().power(f, systems * topics, alpha,
    k_groups=systems)``. Vectorised over ``effect`` and ``topics``."""
    f = np.asarray(effect, dtype=np.float64)
    nobs = systems * np.asarray(topics, dtype=np.float64)
    df1, df2 = systems - 1, nobs - systems
    crit = stats.f.isf(alpha, df1, df2)
    return 1 - special.ncfdtr(df1, df2, f * f * nobs, crit)


def anova_power(
    anova: Anova | None = None,
    *,
    systems: int | None = None,
    topics: int | None = None,
    variance: float | None = None,
    alpha: float = StatsPolicy.alpha,
    power: float = DEFAULT_POWER,
    difference: float = DEFAULT_DIFFERENCE,
) -> AnovaPower:
    """Sakai's ANOVA-based topic set size design. From an ANOVA table (``anova``: its systems,
    topics and within-system variance) or from ``systems``, ``topics`` and ``variance`` given
    (each also overrides the table's).

    >>> a = anova_power(systems=10, topics=50, variance=0.04)
    >>> round(a.detectable_range, 4), a.topics_needed
    (0.1596, 502)
    """
    m = systems if systems is not None else (len(anova.systems) if anova is not None else None)
    n = topics if topics is not None else (anova.topics if anova is not None else None)
    var = variance if variance is not None else (anova.within_system_variance if anova is not None else None)
    if m is None or n is None or var is None:
        raise ValueError("anova_power needs an ANOVA table, or systems, topics and variance")
    m = checks.count("systems", m, 2, MAX_TOPICS)
    n = checks.count("topics", n, 2, MAX_TOPICS)
    var = _positive("variance", var)
    alpha, power = checks.probability("alpha", alpha), checks.probability("power", power)
    difference = _positive("difference", difference)
    to_f = 1 / math.sqrt(2 * m * var)  # f = D / sqrt(2 m sigma**2)
    if power <= alpha:
        detectable = 0.0
    else:
        high = 1.0
        while f_power(high, m, n, alpha) < power:
            high *= 2
        f_min = optimize.brentq(lambda f: f_power(f, m, n, alpha) - power, 0.0, high, xtol=1e-15, rtol=1e-14)
        detectable = float(f_min) / to_f
    f = difference * to_f
    low, high_n = 1, 2
    while f_power(f, m, high_n, alpha) < power and high_n < MAX_TOPICS:
        low, high_n = high_n, min(high_n * 2, MAX_TOPICS)
    while high_n - low > 1:
        mid = (low + high_n) // 2
        low, high_n = (low, mid) if f_power(f, m, mid, alpha) >= power else (mid, high_n)
    return AnovaPower(m, n, var, alpha, power, detectable, difference, high_n)


def _positive(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0 < value < math.inf:
        raise ValueError(f"{name} must be a positive number (got {value!r})")
    return float(value)
