"""Statistics for comparing retrieval runs: paired tests, randomization, bootstrap, corrections.

Pure functions of per-topic score vectors (numpy float arrays paired by topic, in the same order);
no I/O, no Java, only numpy (scipy and statsmodels are the *test oracles*, not dependencies).
Everything that draws random numbers takes an explicit integer ``seed`` and uses
``numpy.random.default_rng(seed)``: the same inputs and seed give the same p-value, bit for bit.

    >>> import numpy as np
    >>> a = np.array([0.50, 0.30, 0.80, 0.40, 0.60])
    >>> b = np.array([0.40, 0.30, 0.55, 0.20, 0.50])
    >>> round(paired_t(a, b), 4)
    0.0406
    >>> exact_randomization(np.array([3.0, 2.0, 1.0]), np.zeros(3))   # 2 of 8 sign patterns
    0.25
    >>> correct([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]

Conventions (every one changes a number, so every one is stated):

- ``d = a - b`` per topic; every test is two-sided; the null hypothesis is "no difference".
- ``paired_t`` and ``wilcoxon`` return the p-values of ``scipy.stats.ttest_rel`` and
  ``scipy.stats.wilcoxon`` (defaults), except that identical runs (every ``d == 0``) give
  ``p = 1.0`` instead of NaN or an error, and, for the t-test, constant non-zero differences give
  ``p = 0.0``.
- Monte Carlo tests report ``p = (b + 1) / (B + 1)`` (the observed labelling counts as one of the
  resamples), so p is never 0. A resampled statistic "reaches" the observed one when
  ``|stat| >= |observed| - tol`` with ``tol = 1e-9 * mean(|d|)`` (on the scale of the mean
  difference; the largest possible ``|mean|``): sums of the same numbers in a
  different order differ in the last bits, and without the tolerance exact ties (common: P@10
  differences are multiples of 0.1) would be counted or not by accident of rounding.
- Wins, ties and losses compare per-topic scores exactly (``==``): both scores come from the same
  measure code, so an identical ranking gives an identical score.
- ``reject`` is ``p_corrected < alpha`` (strict).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace

import numpy as np

from harness.errors import DataError

__all__ = [
    "TESTS", "CORRECTIONS", "FAMILIES",
    "paired_t", "wilcoxon", "randomization", "exact_randomization", "bootstrap_test",
    "bootstrap_ci", "cohens_d_paired", "correct", "paired_test",
    "StatsPolicy", "Comparison", "compare", "pairs_against", "all_pairs",
    "Fold", "CrossValidation", "cross_validate", "not_worse_than_best",
]

# The registries: config validation, CLI choices and report text all read these.
TESTS: dict[str, str] = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization (sign-flip) test",
    "bootstrap": "paired bootstrap test",
}
CORRECTIONS: dict[str, str] = {
    "none": "no correction",
    "bonferroni": "Bonferroni correction",
    "holm": "Holm-Bonferroni correction",
    "bh": "Benjamini-Hochberg (FDR) correction",
}
FAMILIES: dict[str, str] = {
    "per-measure": "within each measure",
    "all": "across all measures and pairs",
}

# Largest n for which exact_randomization enumerates the 2**n sign patterns.
EXACT_MAX_TOPICS = 20
# Relative tolerance for "reaches the observed statistic" (see the module docstring).
_TIE_TOL = 1e-9
# Random bytes drawn per block: fixed, so a p-value never depends on available memory.
_BLOCK_BYTES = 1 << 22


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
        raise DataError(source, f"runs are paired by topic, so need the same number of topics "
                                f"(got {va.size} and {vb.size})")
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
    for m in range(1, 10_000):                   # converges in O(sqrt(max(a, b))) steps
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
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
    x, y = 1.0 / (1.0 + q), q / (1.0 + q)          # x = df/(df+t^2), y = 1 - x, both without cancellation
    ln_x, ln_y = -math.log1p(q), (math.log(y) if y > 0 else -math.inf)
    if y == 0:
        return 1.0
    front = math.exp(a * ln_x + b * ln_y - _lbeta_half(a))
    if x < (a + 1.0) / (a + b + 2.0):
        return min(1.0, front * _betacf(a, b, x) / a)
    return min(1.0, 1.0 - front * _betacf(b, a, y) / b)


def _normal_two_sided(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2.0))      # 2 * (1 - Phi(|z|))


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
        null = _subset_sums(ranks)               # sum of the ranks given a + sign, per pattern
        gamma = abs(100 * np.finfo(float).eps * r_plus)
        low = np.count_nonzero(null <= r_plus + gamma)
        high = np.count_nonzero(null >= r_plus - gamma)
        return min(1.0, 2.0 * min(low, high) / null.size)
    mean = n * (n + 1) / 4.0
    var = (n * (n + 1.0) * (2.0 * n + 1.0) - float(np.sum(ties**3.0 - ties)) / 2.0) / 24.0
    return _normal_two_sided((r_plus - mean) / math.sqrt(var))


def _subset_sums(x: np.ndarray) -> np.ndarray:
    """Sum of x[i] over the i in each of the 2**len(x) subsets."""
    sums = np.zeros(1)
    for v in x:
        sums = np.concatenate((sums, sums + v))
    return sums


def _signed_sums(d: np.ndarray) -> np.ndarray:
    """sum(s * d) for each of the 2**len(d) sign vectors s."""
    sums = np.zeros(1)
    for v in d:
        sums = np.concatenate((sums + v, sums - v))
    return sums


def _reaches(stats: np.ndarray, observed: float, scale: float) -> int:
    """How many |stats| reach |observed|, with the float-noise tolerance of the module docstring."""
    return int(np.count_nonzero(np.abs(stats) >= abs(observed) - _TIE_TOL * scale))


def exact_randomization(a, b) -> float:
    """Exact two-sided p-value of the paired sign-flip test of the mean difference: the share of
    all 2**n sign patterns whose ``|sum(s * d)|`` reaches ``|sum(d)|`` (the observed pattern
    included). For n <= EXACT_MAX_TOPICS (20); it is the oracle for :func:`randomization`.

    >>> exact_randomization([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    0.25
    """
    d = _diff(a, b)
    if d.size > EXACT_MAX_TOPICS:
        raise ValueError(f"exact_randomization enumerates 2**n sign patterns, so n must be <= "
                         f"{EXACT_MAX_TOPICS} (got {d.size} topics); use randomization() instead")
    sums = _signed_sums(d)
    return _reaches(sums, float(d.sum()), float(np.abs(d).sum())) / sums.size


def _sign_flip_sums(d: np.ndarray, permutations: int, rng: np.random.Generator) -> np.ndarray:
    """sum(s * d) for ``permutations`` random sign vectors s, drawn as packed random bits.

    Each byte of randomness holds the signs of 8 topics, so a table per byte position of the 256
    possible signed sums turns a permutation into n/8 look-ups: no n-by-B sign matrix is built.
    """
    nbytes = -(-d.size // 8)
    padded = np.zeros(nbytes * 8)
    padded[: d.size] = d                                     # padding topics add 0 either way
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    signs = 2.0 * bits - 1.0                                 # (256, 8): bit k of v -> sign of topic 8j+k
    table = (padded.reshape(nbytes, 8) @ signs.T).ravel()    # table[256 j + v]
    offsets = np.arange(nbytes, dtype=np.intp) * 256
    nwords = -(-nbytes // 8)
    rows = max(1, _BLOCK_BYTES // (nwords * 8))
    out = np.empty(permutations)
    for start in range(0, permutations, rows):
        r = min(rows, permutations - start)
        words = rng.integers(0, 2**64 - 1, size=(r, nwords), dtype=np.uint64, endpoint=True)
        byts = words.astype("<u8", copy=False).view(np.uint8)[:, :nbytes]
        out[start:start + r] = table[byts + offsets].sum(axis=1)
    return out


def randomization(a, b, permutations: int = 10_000, seed: int = 42) -> float:
    """Two-sided p-value of the paired randomization (sign-flip) test of the mean difference.

    Under the null hypothesis each topic's difference is as likely to have had the other sign.
    ``permutations`` random sign vectors (``default_rng(seed)``) give ``b`` resampled
    ``|mean(s * d)|`` that reach ``|mean(d)|``; ``p = (b + 1) / (permutations + 1)``.
    Deterministic for a given seed, n and permutations.
    """
    d = _diff(a, b)
    permutations = _count("permutations", permutations)
    rng = np.random.default_rng(_seed(seed))
    sums = _sign_flip_sums(d, permutations, rng)
    hits = _reaches(sums, float(d.sum()), float(np.abs(d).sum()))
    return (hits + 1) / (permutations + 1)


def _bootstrap_means(d: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """Means of ``samples`` resamples of d (topics drawn with replacement, ``default_rng(seed)``).
    Shared by the bootstrap test and CI, so with the same seed they agree with each other."""
    rng = np.random.default_rng(_seed(seed))
    n = d.size
    rows = max(1, (_BLOCK_BYTES // 8) // n)
    out = np.empty(samples)
    for start in range(0, samples, rows):
        r = min(rows, samples - start)
        out[start:start + r] = d[rng.integers(0, n, size=(r, n))].mean(axis=1)
    return out


def bootstrap_test(a, b, samples: int = 10_000, seed: int = 42) -> float:
    """Two-sided p-value of the paired bootstrap test of the mean difference.

    The differences are shifted to mean zero (the null hypothesis), resampled ``samples`` times;
    ``b`` counts resampled ``|mean|`` reaching the observed ``|mean(d)|``;
    ``p = (b + 1) / (samples + 1)``. It uses the same resamples as :func:`bootstrap_ci` with the
    same seed.
    """
    d = _diff(a, b)
    samples = _count("samples", samples)
    observed = float(d.mean())
    # mean(resample of d - mean(d)) == mean(resample of d) - mean(d): shift after resampling.
    shifted = _bootstrap_means(d, samples, seed) - observed
    hits = int(np.count_nonzero(np.abs(shifted) >= abs(observed) - _TIE_TOL * float(np.abs(d).mean())))
    return (hits + 1) / (samples + 1)


def bootstrap_ci(a, b, level: float = 0.95, samples: int = 10_000, seed: int = 42) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean difference ``mean(a - b)``: the
    ``(1-level)/2`` and ``(1+level)/2`` quantiles (numpy's default, linear interpolation) of the
    means of ``samples`` resamples of the topics (``default_rng(seed)``)."""
    d = _diff(a, b)
    samples = _count("samples", samples)
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1) (got {level!r})")
    means = _bootstrap_means(d, samples, seed)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


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


def paired_test(a, b, test: str = "t", *, permutations: int = 10_000, samples: int = 10_000,
                seed: int = 42) -> float:
    """The p-value of the named test (a key of TESTS); ``permutations``/``samples``/``seed`` are
    used by the randomization and bootstrap tests only."""
    test = _one_of("test", test, TESTS)
    if test == "t":
        return paired_t(a, b)
    if test == "wilcoxon":
        return wilcoxon(a, b)
    if test == "randomization":
        return randomization(a, b, permutations=permutations, seed=seed)
    return bootstrap_test(a, b, samples=samples, seed=seed)


# --- multiple comparisons ------------------------------------------------------------------------

def correct(pvalues, method: str) -> np.ndarray:
    """Adjusted p-values for a family of tests, in the input order, clipped to 1; equal to
    ``statsmodels.stats.multitest.multipletests(p, method=...)[1]`` with ``"bonferroni"``,
    ``"holm"`` and ``"fdr_bh"`` (our ``"bh"``). ``"none"`` returns the p-values unchanged.

    >>> correct([0.01, 0.02, 0.03, 0.04], "bh").tolist()
    [0.04, 0.04, 0.04, 0.04]
    """
    method = _one_of("correction", method, CORRECTIONS)
    p = np.array(pvalues, dtype=np.float64).reshape(-1)
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError(f"p-values must be in [0, 1] (got {p.tolist()!r})")
    m = p.size
    if method == "none" or m == 0:
        return p
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")          # tied p-values get equal adjusted values anyway
    ps = p[order]
    if method == "holm":
        adj = np.maximum.accumulate(ps * np.arange(m, 0, -1))
    else:  # bh
        adj = np.minimum.accumulate((ps / (np.arange(1, m + 1) / m))[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


# --- comparing runs ------------------------------------------------------------------------------

@dataclass(frozen=True)
class StatsPolicy:
    """Everything that decides a reported p-value or interval; echoed in reports as ``str(policy)``.

    >>> print(StatsPolicy())
    paired t-test; Holm-Bonferroni correction within each measure; alpha=0.05; 95% percentile bootstrap CI (10000 samples, seed 42)
    """

    test: str = "t"
    correction: str = "holm"
    family: str = "per-measure"
    alpha: float = 0.05
    permutations: int = 10_000
    bootstrap_samples: int = 10_000
    ci_level: float = 0.95
    seed: int = 42

    def __post_init__(self):
        _one_of("test", self.test, TESTS)
        _one_of("correction", self.correction, CORRECTIONS)
        _one_of("family", self.family, FAMILIES)
        for name in ("alpha", "ci_level"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1:
                raise ValueError(f"{name} must be a number in (0, 1) (got {v!r})")
        _count("permutations", self.permutations)
        _count("bootstrap_samples", self.bootstrap_samples)
        _seed(self.seed)

    def __str__(self) -> str:
        test = TESTS[self.test]
        if self.test == "randomization":
            test += f" ({self.permutations} permutations, seed {self.seed})"
        elif self.test == "bootstrap":
            test += f" ({self.bootstrap_samples} samples, seed {self.seed})"
        corr = CORRECTIONS[self.correction]
        if self.correction != "none":
            corr += " " + FAMILIES[self.family]
        level = f"{self.ci_level * 100:g}%"
        return (f"{test}; {corr}; alpha={self.alpha:g}; {level} percentile bootstrap CI "
                f"({self.bootstrap_samples} samples, seed {self.seed})")

    def pvalue(self, a, b) -> float:
        return paired_test(a, b, self.test, permutations=self.permutations,
                           samples=self.bootstrap_samples, seed=self.seed)


def _policy(policy: StatsPolicy | None, overrides: Mapping[str, object]) -> StatsPolicy:
    policy = StatsPolicy() if policy is None else policy
    known = {f.name for f in fields(StatsPolicy)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(f"unknown statistics option(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
    return replace(policy, **overrides) if overrides else policy


@dataclass(frozen=True)
class Comparison:
    """One run against one baseline on one measure. ``diff = mean_run - mean_baseline``; the CI,
    the effect size and the test are all of ``run - baseline`` per topic."""

    measure: str
    baseline: str
    run: str
    topics: int
    mean_baseline: float
    mean_run: float
    diff: float
    ci_low: float
    ci_high: float
    effect_size: float        # paired Cohen's d (d_z), see cohens_d_paired
    p: float
    p_corrected: float
    reject: bool              # p_corrected < alpha
    wins: int                 # topics where run > baseline
    ties: int
    losses: int


def pairs_against(baselines: str | Sequence[str], runs: Sequence[str]) -> list[tuple[str, str]]:
    """(baseline, run) for every baseline and every other run, in the given orders.

    >>> pairs_against("bm25", ["bm25", "ql", "rm3"])
    [('bm25', 'ql'), ('bm25', 'rm3')]
    """
    baselines = [baselines] if isinstance(baselines, str) else list(baselines)
    return [(b, r) for b in baselines for r in runs if r != b]


def all_pairs(runs: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair once, earlier run as the baseline.

    >>> all_pairs(["a", "b", "c"])
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    runs = list(runs)
    return [(runs[i], runs[j]) for i in range(len(runs)) for j in range(i + 1, len(runs))]


def compare(scores: Mapping[str, Mapping[str, np.ndarray]], pairs: Sequence[tuple[str, str]],
            measures: Sequence[str] | None = None, policy: StatsPolicy | None = None,
            **options) -> list[Comparison]:
    """Compare runs pairwise on per-topic scores: ``scores[run][measure]`` is a vector over the
    same topics in the same order for every run. ``pairs`` are (baseline, run); ``measures``
    defaults to the first baseline's measures in their order. ``options`` override fields of
    ``policy`` (e.g. ``test="randomization"``).

    Every comparison uses ``policy.seed`` itself, so any reported p-value is reproduced by calling
    the test alone with that seed, whatever else is in the report. p-values are corrected over the
    policy's family: each measure across all pairs (``per-measure``), or everything at once (``all``).
    Returns one record per (measure, pair), measures outer, pairs inner.
    """
    policy = _policy(policy, options)
    pairs = [tuple(p) for p in pairs]
    if not pairs:
        raise ValueError("pairs must name at least one (baseline, run) pair")
    for p in pairs:
        if len(p) != 2:
            raise ValueError(f"each pair must be (baseline, run) (got {p!r})")
        for name in p:
            if name not in scores:
                raise DataError("scores", f"run {name!r} has no scores; runs with scores: {', '.join(map(repr, scores))}")
    if measures is None:
        measures = list(scores[pairs[0][0]])
    measures = list(measures)

    rows = []
    for measure in measures:
        for base, run in pairs:
            where_b, where_r = f"scores[{base!r}][{measure!r}]", f"scores[{run!r}][{measure!r}]"
            for name, where in ((base, where_b), (run, where_r)):
                if measure not in scores[name]:
                    raise DataError(where, f"run {name!r} has no scores for {measure!r}; it has: "
                                           f"{', '.join(map(repr, scores[name])) or 'none'}")
            x = _vector(scores[base][measure], where_b)
            y = _vector(scores[run][measure], where_r)
            if x.size != y.size:
                raise DataError(where_r, f"{y.size} topics, but {where_b} has {x.size}; runs are paired "
                                         "by topic, so every run needs a score for every topic")
            lo, hi = bootstrap_ci(y, x, policy.ci_level, policy.bootstrap_samples, policy.seed)
            rows.append(dict(
                measure=measure, baseline=base, run=run, topics=int(x.size),
                mean_baseline=float(x.mean()), mean_run=float(y.mean()), diff=float((y - x).mean()),
                ci_low=lo, ci_high=hi, effect_size=cohens_d_paired(y, x), p=policy.pvalue(y, x),
                wins=int(np.count_nonzero(y > x)), ties=int(np.count_nonzero(y == x)),
                losses=int(np.count_nonzero(y < x)),
            ))

    groups: dict[object, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r["measure"] if policy.family == "per-measure" else None, []).append(i)
    adjusted = [0.0] * len(rows)
    for idx in groups.values():
        for i, q in zip(idx, correct([rows[i]["p"] for i in idx], policy.correction)):
            adjusted[i] = float(q)
    return [Comparison(**r, p_corrected=q, reject=bool(q < policy.alpha)) for r, q in zip(rows, adjusted)]


# --- tuning without peeking ----------------------------------------------------------------------

@dataclass(frozen=True)
class Fold:
    """One cross-validation fold: the setting chosen on the other folds, scored on this one."""

    index: int
    test_topics: tuple[str, ...]
    chosen: str
    train_mean: float         # the chosen setting's mean on the training topics
    test_mean: float          # ... and on this fold's held-out topics


@dataclass(frozen=True)
class CrossValidation:
    folds: tuple[Fold, ...]
    heldout: np.ndarray = field(repr=False)   # per-topic held-out scores, in the input topic order
    heldout_mean: float                       # mean over all topics of ``heldout``


def _settings(per_topic_by_setting: Mapping[str, object]) -> tuple[list[str], np.ndarray]:
    names = list(per_topic_by_setting)
    if not names:
        raise ValueError("need at least one setting")
    vecs = [_vector(per_topic_by_setting[s], f"settings[{s!r}]") for s in names]
    for s, v in zip(names, vecs):
        if v.size != vecs[0].size:
            raise DataError(f"settings[{s!r}]", f"{v.size} topics, but settings[{names[0]!r}] has "
                                                f"{vecs[0].size}; settings must be scored on the same topics")
    return names, np.vstack(vecs)


def cross_validate(per_topic_by_setting: Mapping[str, np.ndarray], topics: Sequence[str],
                   folds: int = 5, seed: int = 42) -> CrossValidation:
    """k-fold cross-validation over topics of choosing a setting (e.g. a parameter sweep).

    Fold assignment: the topic ids, sorted, are shuffled with ``default_rng(seed)`` and split into
    ``folds`` parts of near-equal size, so a topic's fold depends on the ids and seed only, not on
    the input order. On each fold the setting with the best mean on the other folds' topics is
    chosen (ties: the first in the given order) and scored on the held-out topics. The overall
    score is the mean over all topics of their held-out scores (not the mean of fold means).
    """
    names, m = _settings(per_topic_by_setting)
    topics = [str(t) for t in topics]
    if len(topics) != m.shape[1]:
        raise DataError("topics", f"{len(topics)} topic ids for {m.shape[1]} per-topic scores")
    if len(set(topics)) != len(topics):
        dup = next(t for t in topics if topics.count(t) > 1)
        raise DataError("topics", f"topic ids must be unique ({dup!r} repeats)")
    folds = _count("folds", folds, low=2)
    if folds > len(topics):
        raise ValueError(f"folds must be <= the number of topics ({len(topics)}) (got {folds})")
    position = {t: i for i, t in enumerate(topics)}
    shuffled = np.random.default_rng(_seed(seed)).permutation(sorted(topics))
    heldout = np.empty(m.shape[1])
    out = []
    for k, part in enumerate(np.array_split(shuffled, folds)):
        test = np.array([position[t] for t in part], dtype=np.intp)
        train = np.ones(m.shape[1], dtype=bool)
        train[test] = False
        train_means = m[:, train].mean(axis=1)
        best = int(np.argmax(train_means))       # first of the tied maxima
        heldout[test] = m[best, test]
        out.append(Fold(k, tuple(str(t) for t in part), names[best], float(train_means[best]),
                        float(m[best, test].mean())))
    return CrossValidation(tuple(out), heldout, float(heldout.mean()))


def not_worse_than_best(per_topic_by_setting: Mapping[str, np.ndarray], policy: StatsPolicy | None = None,
                        **options) -> list[str]:
    """The settings not significantly different from the best one (by mean; ties: the first), the
    best included, in the given order. Each setting is tested against the best with the policy's
    test; the p-values are corrected together with the policy's correction; a setting stays when
    ``p_corrected >= alpha``. ``options`` override policy fields (``test``, ``correction``,
    ``alpha``, ``seed``, ...)."""
    policy = _policy(policy, options)
    names, m = _settings(per_topic_by_setting)
    best = int(np.argmax(m.mean(axis=1)))
    others = [i for i in range(len(names)) if i != best]
    p = correct([policy.pvalue(m[i], m[best]) for i in others], policy.correction)
    keep = {best} | {i for i, q in zip(others, p) if not q < policy.alpha}
    return [names[i] for i in range(len(names)) if i in keep]
