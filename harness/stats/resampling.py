"""Resampling tests and intervals: exact and Monte Carlo randomization (sign-flip) tests, the
paired bootstrap test and percentile bootstrap CIs. Seeded: the same inputs and seed give the
same p-value, bit for bit (conventions: ``harness.stats``)."""

from __future__ import annotations

import warnings

import numpy as np

from harness import lazy
from harness.policies import StatsPolicy
from harness.stats import checks

stats = lazy.module("scipy.stats")

# Largest n for which exact_randomization enumerates the 2**n sign patterns.
EXACT_MAX_TOPICS = 20
# Relative tolerance for "reaches the observed statistic" (see harness.stats' docstring); the
# randomised Tukey HSD (harness.stats.tukey) counts with it too.
TIE_TOL = 1e-9
# Random bytes drawn per block: fixed, so a p-value never depends on available memory.
_BLOCK_BYTES = 1 << 22


def _signed_sums(d: np.ndarray) -> np.ndarray:
    """sum(s * d) for each of the 2**len(d) sign vectors s."""
    sums = np.zeros(1)
    for v in d:
        sums = np.concatenate((sums + v, sums - v))
    return sums


def _reaches(stats: np.ndarray, observed: float, scale: float) -> int:
    """How many |stats| reach |observed|, with the float-noise tolerance of the module docstring."""
    return int(np.count_nonzero(np.abs(stats) >= abs(observed) - TIE_TOL * scale))


def exact_randomization(a, b) -> float:
    """Exact two-sided p-value of the paired sign-flip test of the mean difference: the share of
    all 2**n sign patterns whose ``|sum(s * d)|`` reaches ``|sum(d)|`` (the observed pattern
    included). For n <= EXACT_MAX_TOPICS (20); it is the oracle for :func:`randomization`.

    >>> exact_randomization([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    0.25
    """
    d = checks.diff(a, b)
    if d.size > EXACT_MAX_TOPICS:
        raise ValueError(
            f"exact_randomization enumerates 2**n sign patterns, so n must be <= "
            f"{EXACT_MAX_TOPICS} (got {d.size} topics); use randomization() instead"
        )
    sums = _signed_sums(d)
    return _reaches(sums, float(d.sum()), float(np.abs(d).sum())) / sums.size


def _sign_flip_sums(d: np.ndarray, permutations: int, rng: np.random.Generator) -> np.ndarray:
    """sum(s * d) for ``permutations`` random sign vectors s, drawn as packed random bits.

    Hand-written because scipy is far slower here: ``scipy.stats.permutation_test`` (one sample,
    ``permutation_type="samples"``, vectorized) took 11.9 s for 10,000 topics x 10,000 sign
    flips against 0.28 s for this, 43x (one run of bench/bench_stats.py, shared 2-core machine).

    Each byte of randomness holds the signs of 8 topics, so a table per byte position of the 256
    possible signed sums turns a permutation into n/8 look-ups: no n-by-B sign matrix is built.
    """
    nbytes = -(-d.size // 8)
    padded = np.zeros(nbytes * 8)
    padded[: d.size] = d  # padding topics add 0 either way
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    signs = 2.0 * bits - 1.0  # (256, 8): bit k of v -> sign of topic 8j+k
    table = (padded.reshape(nbytes, 8) @ signs.T).ravel()  # table[256 j + v]
    offsets = np.arange(nbytes, dtype=np.intp) * 256
    nwords = -(-nbytes // 8)
    rows = max(1, _BLOCK_BYTES // (nwords * 8))
    out = np.empty(permutations)
    for start in range(0, permutations, rows):
        r = min(rows, permutations - start)
        words = rng.integers(0, 2**64 - 1, size=(r, nwords), dtype=np.uint64, endpoint=True)
        byts = words.astype("<u8", copy=False).view(np.uint8)[:, :nbytes]
        out[start : start + r] = table[byts + offsets].sum(axis=1)
    return out


def randomization(a, b, permutations: int = StatsPolicy.permutations, seed: int = StatsPolicy.seed) -> float:
    """Two-sided p-value of the paired randomization (sign-flip) test of the mean difference.

    Under the null hypothesis each topic's difference is as likely to have had the other sign.
    ``permutations`` random sign vectors (``default_rng(seed)``) give ``b`` resampled
    ``|mean(s * d)|`` that reach ``|mean(d)|``; ``p = (b + 1) / (permutations + 1)``.
    Deterministic for a given seed, n and permutations.
    """
    d = checks.diff(a, b)
    permutations = checks.count("permutations", permutations)
    rng = np.random.default_rng(checks.seed(seed))
    sums = _sign_flip_sums(d, permutations, rng)
    hits = _reaches(sums, float(d.sum()), float(np.abs(d).sum()))
    return (hits + 1) / (permutations + 1)


def _bootstrap_means(d: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """Means of ``samples`` resamples of d (topics drawn with replacement, ``default_rng(seed)``):
    ``scipy.stats.bootstrap``'s bootstrap distribution, in blocks of bounded memory. Shared by the
    bootstrap test and CI, so with the same seed they agree with each other."""
    if d.size == 1:  # scipy needs two observations; every resample of one topic is that topic
        return np.full(samples, float(d[0]))
    with warnings.catch_warnings():
        # scipy also estimates a standard error, which warns for samples == 1; we do not use it.
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.bootstrap(
            (d,),
            np.mean,
            n_resamples=samples,
            batch=max(1, (_BLOCK_BYTES // 8) // d.size),
            vectorized=True,
            method="percentile",
            rng=np.random.default_rng(checks.seed(seed)),
        )
    return res.bootstrap_distribution


def bootstrap_test(a, b, samples: int = StatsPolicy.bootstrap_samples, seed: int = StatsPolicy.seed) -> float:
    """Two-sided p-value of the paired bootstrap test of the mean difference.

    The differences are shifted to mean zero (the null hypothesis), resampled ``samples`` times;
    ``b`` counts resampled ``|mean|`` reaching the observed ``|mean(d)|``;
    ``p = (b + 1) / (samples + 1)``. It uses the same resamples as :func:`bootstrap_ci` with the
    same seed.
    """
    d = checks.diff(a, b)
    samples = checks.count("samples", samples)
    observed = float(d.mean())
    # mean(resample of d - mean(d)) == mean(resample of d) - mean(d): shift after resampling.
    shifted = _bootstrap_means(d, samples, seed) - observed
    hits = int(np.count_nonzero(np.abs(shifted) >= abs(observed) - TIE_TOL * float(np.abs(d).mean())))
    return (hits + 1) / (samples + 1)


def bootstrap_ci(
    a,
    b,
    level: float = StatsPolicy.ci_level,
    samples: int = StatsPolicy.bootstrap_samples,
    seed: int = StatsPolicy.seed,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean difference ``mean(a - b)``: the
    ``(1-level)/2`` and ``(1+level)/2`` quantiles (numpy's default, linear interpolation) of the
    means of ``samples`` resamples of the topics (``default_rng(seed)``; the resamples are
    ``scipy.stats.bootstrap``'s, whose own percentile interval can differ from ``np.quantile``
    in the last bit)."""
    d = checks.diff(a, b)
    samples = checks.count("samples", samples)
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1) (got {level!r})")
    means = _bootstrap_means(d, samples, seed)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)
