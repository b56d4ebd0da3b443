"""Tukey's honestly significant difference: every pair of systems tested at once, family-wise.

Both tests answer "which of these systems differ?" for m systems on the same n topics, with a
p-value per pair that already holds for the whole family of m (m - 1) / 2 pairs (no further
correction): a pair's p is the probability, under "no system differs", that the *largest*
difference between any two system means reaches the pair's difference.

- :func:`tukey_hsd`, the classic test: ``q = |mean_i - mean_j| / sqrt(MSE / n)`` with ``MSE``
  the residual mean square of the two-way ANOVA (system x topic, harness.stats.anova) and
  ``p = scipy.stats.studentized_range.sf(q, m, (m - 1)(n - 1))``. It assumes normal errors of one
  variance. Unlike statsmodels' ``pairwise_tukeyhsd`` and scipy's ``tukey_hsd`` (one-way: each
  system a separate sample), it removes the topics' variation first, as the paired design
  allows: those one-way tests count the differences between easy and hard topics as noise,
  which ranx's "tukey" does too.
- :func:`randomized_tukey_hsd`, the randomised test (Carterette 2012, TOIS 30(1); Sakai 2014,
  SIGIR Forum 48(1), and his 2018 book, ch. 4): under the null hypothesis the m scores of a topic
  could have come from any of the m systems, so each permutation shuffles every topic's scores
  across the systems (independently per topic) and records the largest difference of system
  means; a pair's ``p = (b + 1) / (B + 1)``, ``b`` of the ``B = permutations`` permutations
  reaching the pair's ``|mean_i - mean_j|``. It assumes only that exchangeability.

The randomised test follows harness.stats' conventions for the paired randomization test
(:func:`harness.stats.randomization`): the observed arrangement counts as one of the
permutations (``+1`` above and below, so p is never 0), "reaches" is ``>= observed - 1e-9 *
scale`` (``scale``: the largest possible difference, ``mean_t (max_t - min_t)``; sums of the same
numbers in another order differ in the last bits), and it is seeded: ``numpy.random.default_rng(seed)``,
so the same scores, seed and count give the same p-values, bit for bit. With two systems it is
the paired randomization test (one permutation per topic is one sign flip of its difference),
and the classic test is the paired t-test.
"""

from __future__ import annotations

import itertools
import math
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from harness import lazy
from harness.formats.tokenizer import worker_threads
from harness.policies import StatsPolicy
from harness.stats import checks
from harness.stats.anova import two_way_anova
from harness.stats.resampling import TIE_TOL

stats = lazy.module("scipy.stats")
integrate = lazy.module("scipy.integrate")

__all__ = ["PairwiseP", "TukeyHSD", "RandomizedTukeyHSD", "tukey_hsd", "randomized_tukey_hsd", "STREAM_PERMUTATIONS"]

# Permutations per random stream (see _largest_differences): fixed, so that a p-value depends on the
# seed and the number of permutations alone, never on the threads or the memory at hand.
STREAM_PERMUTATIONS = 1000
# The random bits of a key: None, all above the system index's; tests set a few to make ties.
_RANDOM_BITS: int | None = None
# Bytes of scores a stream handles at once (its key buffers are as large or half): a few permutations.
_CHUNK_BYTES = 1 << 22


@dataclass(frozen=True)
class PairwiseP:
    """One pair of an all-pairs test: ``diff = mean(run) - mean(baseline)`` (the earlier system
    is the baseline, as harness.stats.all_pairs), the test's statistic and its family-wise p."""

    baseline: str
    run: str
    diff: float
    statistic: float  # tukey_hsd: q; randomized_tukey_hsd: |diff|
    p: float


@dataclass(frozen=True)
class _AllPairs:
    systems: tuple[str, ...]
    means: tuple[float, ...]
    topics: int
    pairs: tuple[PairwiseP, ...]

    def pvalue(self, a: str, b: str) -> float:
        """The p-value of the pair (a, b), in either order."""
        for pair in self.pairs:
            if {pair.baseline, pair.run} == {a, b} and a != b:
                return pair.p
        raise KeyError(f"no pair ({a!r}, {b!r}); systems: {', '.join(map(repr, self.systems))}")

    def p_matrix(self) -> np.ndarray:
        """The m x m symmetric matrix of p-values in ``systems``' order; 1.0 on the diagonal."""
        where = {s: i for i, s in enumerate(self.systems)}
        p = np.ones((len(self.systems), len(self.systems)))
        for pair in self.pairs:
            i, j = where[pair.baseline], where[pair.run]
            p[i, j] = p[j, i] = pair.p
        return p


@dataclass(frozen=True)
class TukeyHSD(_AllPairs):
    """The classic Tukey HSD of one measure: each pair's q and p, from the ANOVA's residual mean
    square ``mse`` with ``df = (m - 1)(n - 1)`` degrees of freedom."""

    mse: float
    df: int


@dataclass(frozen=True)
class RandomizedTukeyHSD(_AllPairs):
    """The randomised Tukey HSD of one measure: each pair's |difference| and p, from
    ``permutations`` permutations drawn with ``seed``."""

    permutations: int
    seed: int


def tukey_hsd(scores, systems) -> TukeyHSD:
    """The classic Tukey HSD over every pair of the systems (the columns of the topics x systems
    ``scores``), from the two-way ANOVA's residual mean square; p by
    ``scipy.stats.studentized_range`` (about 12 ms a distinct q: a double integral each, 15 s for
    the 1,225 pairs of 50 systems; bench/bench_tukey.py). Its far tail is lost: a p below about
    1e-10 may come out as 0.0 (q = 12 for 50 systems, where the true p is 3e-14), which outputs
    write "<2.2e-16" (policies.format_p) like any p that small.

    >>> import numpy as np
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.6, 0.7], [0.1, 0.3, 0.2], [0.4, 0.8, 0.6]])
    >>> [(p.baseline, p.run, round(p.diff, 3), round(p.p, 4)) for p in tukey_hsd(x, ["a", "b", "c"]).pairs]
    [('a', 'b', 0.225, 0.0139), ('a', 'c', 0.15, 0.0718), ('b', 'c', -0.075, 0.4037)]
    """
    anova = two_way_anova(scores, systems)
    m, n = len(anova.systems), anova.topics
    means = np.array(anova.means)
    se = math.sqrt(anova.residual.mean_sq / n)
    pairs = _pairs(m)
    diffs = np.array([means[j] - means[i] for i, j in pairs])
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(diffs) / se
    q_unique, back = np.unique(q, return_inverse=True)
    ok = np.isfinite(q_unique) & (q_unique > 0)  # q = 0 gives 1; 0/0 (no noise, no difference) too
    p_unique = np.ones_like(q_unique)
    # One call for every distinct q, as the time goes to the q's, not the calls: scipy integrates
    # each q of an array on its own, 13.7 ms a q vectorised against 14.0 ms in calls one by one (50
    # systems, 48,951 df; 18 and 13 ms a q for sf and cdf at 5 systems), and two threads gain nothing
    # (13.1 ms: the integration holds the GIL); at df = inf it is 0.3 ms, but that is another p.
    with warnings.catch_warnings():
        # scipy's double integral warns "probably divergent" at a few q whose p is within 1e-10
        # of 1 (q = 1.645 for 50 systems on 48,951 df: 1.0 where the df = inf form gives
        # 0.99999999997); the p it returns there is right to that precision.
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        p_unique[ok] = stats.studentized_range.sf(q_unique[ok], m, anova.residual.df)
    p_unique[np.isinf(q_unique)] = 0.0  # a difference against no noise at all
    p = p_unique[back]
    names = anova.systems
    return TukeyHSD(
        systems=names,
        means=anova.means,
        topics=n,
        pairs=tuple(
            PairwiseP(names[i], names[j], float(d), float(s), float(pp)) for (i, j), d, s, pp in zip(pairs, diffs, q, p)
        ),
        mse=anova.residual.mean_sq,
        df=anova.residual.df,
    )


def randomized_tukey_hsd(
    scores, systems, permutations: int = StatsPolicy.permutations, seed: int = StatsPolicy.seed
) -> RandomizedTukeyHSD:
    """The randomised Tukey HSD over every pair of the systems (the columns of the topics x
    systems ``scores``): ``permutations`` permutations of each topic's scores across the systems,
    seeded (the draws: :func:`_largest_differences`).

    >>> import numpy as np
    >>> x = np.array([[0.2, 0.4, 0.3], [0.5, 0.6, 0.7], [0.1, 0.3, 0.2], [0.4, 0.8, 0.6]])
    >>> [(p.baseline, p.run, round(p.p, 4)) for p in randomized_tukey_hsd(x, ["a", "b", "c"], 2000, seed=1).pairs]
    [('a', 'b', 0.035), ('a', 'c', 0.3448), ('b', 'c', 0.8026)]
    """
    x, names = checks.matrix(scores, systems)
    permutations = checks.count("permutations", permutations)
    seed = checks.seed(seed)
    n, m = x.shape
    largest = np.sort(_largest_differences(x, permutations, seed))  # of sums: n x of means
    sums = x.sum(axis=0)
    tol = TIE_TOL * float(np.sum(x.max(axis=1) - x.min(axis=1)))
    pairs = _pairs(m)
    observed = np.array([abs(sums[j] - sums[i]) for i, j in pairs])
    hits = permutations - np.searchsorted(largest, observed - tol, side="left")
    p = (hits + 1) / (permutations + 1)
    means = x.mean(axis=0)
    return RandomizedTukeyHSD(
        systems=names,
        means=tuple(float(v) for v in means),
        topics=n,
        pairs=tuple(
            PairwiseP(names[i], names[j], float(means[j] - means[i]), float(abs(means[j] - means[i])), float(pp))
            for (i, j), pp in zip(pairs, p)
        ),
        permutations=permutations,
        seed=seed,
    )


def _pairs(m: int) -> list[tuple[int, int]]:
    """Every pair of column indices once, in harness.stats.all_pairs' order (earlier first)."""
    return list(itertools.combinations(range(m), 2))


def _largest_differences(x: np.ndarray, permutations: int, seed: int) -> np.ndarray:
    """``max - min`` of the system sums of ``x`` (topics x systems) after each of ``permutations``
    random permutations of every topic's scores across the systems.

    The draws, which define the p-values. The permutations are cut into streams of
    :data:`STREAM_PERMUTATIONS`; stream k draws from the k-th generator of
    ``numpy.random.default_rng(seed).spawn(K)``. Each permutation takes the stream's next
    ``ceil(n*m*w/64)`` 64-bit words (``bit_generator.random_raw``) and reads them as ``w``-bit
    little-endian keys, ``w = 32`` for ``m <= 64`` systems, else 64; key ``t*m + i`` (the first
    ``n*m``) is system i's on topic t. With the low ``b = bit_length(m - 1)`` bits of every key
    cleared, the system at position i of a topic receives the score of the system with the i-th
    smallest key (an argsort). The keys are i.i.d., so a topic whose keys all differ is arranged
    uniformly at random; a topic whose keys tie (chance about ``m*m/2**(w-b+1)``: 2e-5 for 50
    systems) draws its m keys again, as ``random_raw`` words read the same way, until they all
    differ, from the stream's spare generator (``spawn(1)`` of the stream's generator), in
    permutation and topic order. tests/test_stats_tukey.py rebuilds these draws in plain loops
    and gets the same p-values.

    Hand-written because the plain numpy loop (``Generator.permuted(x, axis=1)`` per permutation:
    Fisher-Yates with an iterator step per topic) is slow; here each key carries its system's
    index in its cleared low bits, so one in-place sort of the key rows gives every topic's
    permutation at once and one ``take`` the scores. The streams run on HARNESS_THREADS threads
    (numpy releases the GIL). bench/bench_tukey.py times 50 systems x 1,000 topics x 10,000
    permutations against the plain loop (docs/performance.md).
    """
    n, m = x.shape
    width = 32 if m <= 64 else 64
    key = np.dtype(f"<u{width // 8}")
    b = max(1, (m - 1).bit_length())
    low = key.type((1 << b) - 1)
    high = ~low
    if _RANDOM_BITS is not None:  # tests only: a few random bits per key, so that keys tie often
        high &= key.type((1 << (b + _RANDOM_BITS)) - 1)
    system = np.arange(m, dtype=key)
    first_cell = (np.arange(n, dtype=key) * m)[:, None]  # topic t's first cell in x.ravel()
    flat = x.ravel()
    words = -(-n * m * width // 64)  # random_raw words per permutation
    chunk = max(1, _CHUNK_BYTES // (8 * n * m))
    out = np.empty(permutations)
    streams = np.random.default_rng(seed).spawn(-(-permutations // STREAM_PERMUTATIONS))

    def run(k: int) -> None:
        rng, spare = streams[k], None
        start, stop = k * STREAM_PERMUTATIONS, min(permutations, (k + 1) * STREAM_PERMUTATIONS)
        size = min(chunk, stop - start)
        keys = np.empty((size, n, m), dtype=key)
        neighbours = np.empty((size, n, m - 1), dtype=key)
        cells = np.empty((size, n, m), dtype=np.intp)
        scores = np.empty((size, n, m))
        for first in range(start, stop, size):
            c = min(size, stop - first)
            k_, nb = keys[:c], neighbours[:c]
            raw = rng.bit_generator.random_raw(c * words).view(key).reshape(c, -1)
            k_[...] = raw[:, : n * m].reshape(c, n, m)
            k_ &= high
            k_ |= system
            k_.sort(axis=2)
            np.bitwise_xor(k_[..., 1:], k_[..., :-1], out=nb)  # <= low: two keys were equal
            if nb.min() <= low:
                for p, t in np.argwhere((nb <= low).any(axis=2)):
                    spare = spare if spare is not None else rng.spawn(1)[0]
                    k_[p, t] = _distinct_keys(spare, system, high, low, width)
            k_ &= low
            k_ += first_cell
            cells[:c] = k_
            np.take(flat, cells[:c], out=scores[:c], mode="clip")
            sums = scores[:c].sum(axis=1)
            out[first : first + c] = sums.max(axis=1) - sums.min(axis=1)

    threads = min(worker_threads(), len(streams))
    if threads == 1:
        for k in range(len(streams)):
            run(k)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(run, range(len(streams))))
    return out


def _distinct_keys(spare: np.random.Generator, system: np.ndarray, high, low, width: int) -> np.ndarray:
    """One topic's keys drawn again from ``spare`` until no two are equal: packed and sorted."""
    m = system.size
    while True:
        raw = spare.bit_generator.random_raw(-(-m * width // 64)).view(system.dtype)[:m]
        keys = (raw & high) | system
        keys.sort()
        if np.all((keys[1:] ^ keys[:-1]) > low):
            return keys
