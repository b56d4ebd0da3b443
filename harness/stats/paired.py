"""Paired tests of two runs' per-topic scores: t-test, Wilcoxon signed-rank, effect size;
and the input checks the other statistics modules share (conventions: ``harness.stats``)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from harness.errors import DataError

# The registry of tests: config validation, CLI choices and report text all read it.
TESTS: dict[str, str] = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization (sign-flip) test",
    "bootstrap": "paired bootstrap test",
}


def _one_of(name: str, value: object, allowed: Mapping[str, str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))} (got {value!r})")
    return value


def _seed(seed: object) -> int:
    # Unseeded randomness is exactly what this module exists to prevent.
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer (got {seed!r})")
    return int(seed)


def _count(name: str, value: object, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low} (got {value!r})")
    return int(value)


def _vector(x: object, source: str) -> np.ndarray:
    try:
        v = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(source, f"per-topic scores must be numbers (got {type(x).__name__})") from None
    if v.ndim != 1:
        raise DataError(source, f"per-topic scores must be a 1-D array (got shape {v.shape})")
    if v.size == 0:
        raise DataError(source, "no topics: per-topic scores are empty")
    bad = np.flatnonzero(~np.isfinite(v))
    if bad.size:
        raise DataError(source, f"per-topic scores must be finite; position {int(bad[0])} is {float(v[bad[0]])!r}")
    return v


def _diff(a: object, b: object, source: str = "paired scores") -> np.ndarray:
    va, vb = _vector(a, source), _vector(b, source)
    if va.shape != vb.shape:
        raise DataError(
            source, f"runs are paired by topic, so need the same number of topics (got {va.size} and {vb.size})"
        )
    return va - vb


# --- special functions (numpy has none, and scipy is not a runtime dependency) -------------------

_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)


def _stirling_tail(z: float) -> float:
    """lgamma(z) - ((z - 1/2) ln z - z + ln(2 pi)/2), accurate to ~1e-20 for z >= 20."""
    zz, term, s = z * z, 1.0 / z, 0.0
    for c in _STIRLING:
        s += c * term
        term /= zz
    return s


def _lbeta_half(a: float) -> float:
    """ln B(a, 1/2), without the cancellation of lgamma(a) - lgamma(a + 1/2) for large a."""
    if a < 20:
        return math.lgamma(a) + math.lgamma(0.5) - math.lgamma(a + 0.5)
    diff = -0.5 * math.log(a) - a * math.log1p(0.5 / a) + 0.5 + _stirling_tail(a) - _stirling_tail(a + 0.5)
    return 0.5 * math.log(math.pi) + diff


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz, Numerical Recipes 6.4)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):  # converges in O(sqrt(max(a, b))) steps
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            step = d * c
            h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return h


def _t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom: I_x(df/2, 1/2), x = df/(df+t^2)."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    a, b = df / 2.0, 0.5
    q = t * t / df
    x, y = 1.0 / (1.0 + q), q / (1.0 + q)  # x = df/(df+t^2), y = 1 - x, both without cancellation
    ln_x, ln_y = -math.log1p(q), (math.log(y) if y > 0 else -math.inf)
    if y == 0:
        return 1.0
    front = math.exp(a * ln_x + b * ln_y - _lbeta_half(a))
    if x < (a + 1.0) / (a + b + 2.0):
        return min(1.0, front * _betacf(a, b, x) / a)
    return min(1.0, 1.0 - front * _betacf(b, a, y) / b)


def _normal_two_sided(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2.0))  # 2 * (1 - Phi(|z|))


# --- paired tests --------------------------------------------------------------------------------


def paired_t(a, b) -> float:
    """Two-sided p-value of the paired t-test of ``a`` against ``b``; equals
    ``scipy.stats.ttest_rel(a, b).pvalue`` (Student's t tail by the incomplete beta function;
    the absolute difference is about 1e-16 per topic: < 1e-12 up to 100,000 topics). Needs at
    least 2 topics. Identical runs give 1.0 (scipy:
    NaN); constant non-zero differences give 0.0."""
    d = _diff(a, b)
    if d.size < 2:
        raise DataError("paired scores", f"the t-test needs at least 2 topics (got {d.size})")
    if np.all(d == d[0]):
        return 1.0 if d[0] == 0 else 0.0
    n = d.size
    t = float(d.mean()) / math.sqrt(float(d.var(ddof=1)) / n)
    return _t_two_sided(t, n - 1.0)


def _average_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based) of x, and the sizes of its tie groups."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    starts = np.flatnonzero(np.concatenate(([True], xs[1:] != xs[:-1])))
    counts = np.diff(np.append(starts, xs.size))
    group_rank = starts + 1 + (counts - 1) / 2.0
    ranks = np.empty(x.size)
    ranks[order] = np.repeat(group_rank, counts)
    return ranks, counts


def _signed_rank_counts(n: int) -> np.ndarray:
    """Number of subsets of {1..n} with each sum 0..n(n+1)/2 (exact integers, n <= 50 < 2**53)."""
    c = np.ones(1, dtype=np.int64)
    for k in range(1, n + 1):
        nxt = np.zeros(k * (k + 1) // 2 + 1, dtype=np.int64)
        nxt[: c.size] += c
        nxt[k:] += c
        c = nxt
    return c


def _subset_sums(x: np.ndarray) -> np.ndarray:
    """Sum of x[i] over the i in each of the 2**len(x) subsets."""
    sums = np.zeros(1)
    for v in x:
        sums = np.concatenate((sums, sums + v))
    return sums


def wilcoxon(a, b) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test; equals ``scipy.stats.wilcoxon(a, b)``
    with its defaults (``zero_method="wilcox"``: zero differences are dropped before ranking;
    ``correction=False``; ``method="auto"``), which picks:

    - n <= 50 topics, no zero and no tied ``|d|``: the exact null distribution;
    - n <= 13 with zeros or ties: all 2**n sign flips of the tie-averaged ranks (exact);
    - otherwise: the normal approximation with the tie-corrected variance.

    Ties are exact float equality of ``|a - b|``, as in scipy. When every difference is zero the
    runs are identical and the p-value is 1.0 (scipy raises or returns NaN).
    """
    d = _diff(a, b)
    n_all = d.size
    nz = d[d != 0]
    n = nz.size
    if n == 0:
        return 1.0
    ranks, ties = _average_ranks(np.abs(nz))
    r_plus = float(ranks[nz > 0].sum())
    has_ties = bool(np.any(ties > 1))
    if n_all <= 50 and not has_ties and n == n_all:
        counts = _signed_rank_counts(n)
        k = int(r_plus)
        low, high = int(counts[: k + 1].sum()), int(counts[k:].sum())
        return min(1.0, 2.0 * min(low, high) / 2.0**n)
    if n_all <= 13:
        # All 2**n sign patterns of the ranks; flipping a dropped zero changes nothing, so
        # enumerating the non-zero differences gives the same proportions as scipy's 2**n_all.
        null = _subset_sums(ranks)  # sum of the ranks given a + sign, per pattern
        gamma = abs(100 * np.finfo(float).eps * r_plus)
        low = np.count_nonzero(null <= r_plus + gamma)
        high = np.count_nonzero(null >= r_plus - gamma)
        return min(1.0, 2.0 * min(low, high) / null.size)
    mean = n * (n + 1) / 4.0
    var = (n * (n + 1.0) * (2.0 * n + 1.0) - float(np.sum(ties**3.0 - ties)) / 2.0) / 24.0
    return _normal_two_sided((r_plus - mean) / math.sqrt(var))


def cohens_d_paired(a, b) -> float:
    """Paired effect size ``mean(d) / std(d, ddof=1)`` (Cohen's d_z). Identical runs give 0.0;
    constant non-zero differences give ``+inf`` or ``-inf`` (no spread, all in one direction).
    Needs at least 2 topics."""
    d = _diff(a, b)
    if d.size < 2:
        raise DataError("paired scores", f"the paired effect size needs at least 2 topics (got {d.size})")
    if np.all(d == d[0]):
        return 0.0 if d[0] == 0 else math.copysign(math.inf, float(d[0]))
    return float(d.mean() / d.std(ddof=1))
