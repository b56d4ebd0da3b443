"""harness.stats.tukey against oracles that are not its code.

Classic Tukey HSD: statsmodels' own Tukey machinery given the two-way ANOVA's residual mean
square and degrees of freedom (from anova_lm), the paired t-test with two systems, and where
statsmodels' one-way ``pairwise_tukeyhsd`` must differ (it ignores that every system answers the
same topics), why, to the digit.

Randomised Tukey HSD: a plain-loop rebuild of its draws (same seed, same draws: identical
p-values), exact enumeration of every arrangement on a small matrix, the sign-flip randomization
test with two systems, and its behaviour on Cranfield's real scores."""

from __future__ import annotations

import doctest
import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from statsmodels.formula.api import ols
from statsmodels.sandbox.stats.multicomp import tukeyhsd as sm_tukeyhsd
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.multicomp import pairwise_tukeyhsd

from harness import stats
from harness.errors import DataError
from harness.stats import tukey

from .study_data import CRANFIELD_MEASURES, FIVE, cranfield, synthetic

NAMES = [f"s{i}" for i in range(80)]


def _anova_lm(x: np.ndarray):
    n, m = x.shape
    frame = pd.DataFrame({"score": x.ravel(), "topic": np.repeat(np.arange(n), m), "system": np.tile(np.arange(m), n)})
    return anova_lm(ols("score ~ C(system) + C(topic)", frame).fit())


# --- classic -------------------------------------------------------------------------------------


@pytest.mark.parametrize("x", [synthetic(10, 3, 1), synthetic(40, 6, 2, discrete=True), cranfield("AP")[0]])
def test_classic_equals_statsmodels_tukey_given_the_two_way_residual(x):
    """statsmodels' tukeyhsd(means, nobs, var, df) with the residual mean square and df of
    anova_lm's two-way table: the same q and p for every pair (its df is per group: m * df)."""
    n, m = x.shape
    table = _anova_lm(x)
    mse, df = table.loc["Residual", "mean_sq"], table.loc["Residual", "df"]
    (i1, i2), _, diffs, std, _, _, df_total, _, p = sm_tukeyhsd(x.mean(axis=0), n, mse, df=df / m)
    ours = stats.tukey_hsd(x, NAMES[:m])
    assert df_total == pytest.approx(df) and ours.df == df and ours.mse == pytest.approx(mse, rel=1e-9)
    assert [(p.baseline, p.run) for p in ours.pairs] == [(NAMES[i], NAMES[j]) for i, j in zip(i1, i2)]
    assert [p.diff for p in ours.pairs] == pytest.approx(diffs.tolist(), abs=1e-15)
    assert [p.statistic for p in ours.pairs] == pytest.approx((np.abs(diffs) / std).tolist(), rel=1e-9)
    assert [p.p for p in ours.pairs] == pytest.approx(p.tolist(), rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("x", [synthetic(8, 2, 3), synthetic(30, 2, 4, discrete=True), cranfield("RR")[0][:, :2]])
def test_classic_with_two_systems_is_the_paired_t_test(x):
    assert stats.tukey_hsd(x, ["a", "b"]).pairs[0].p == pytest.approx(
        scipy.stats.ttest_rel(x[:, 1], x[:, 0]).pvalue, rel=1e-7
    )


def test_the_one_way_pairwise_tukeyhsd_differs_by_the_topics_it_ignores():
    """statsmodels' pairwise_tukeyhsd (scipy's tukey_hsd, ranx's "tukey") treats each system as a
    separate sample: its error variance is the within-system variance, topic variation included,
    on m (n - 1) df. Given the scores with each topic's mean removed, it differs from ours only in
    those df. On scores where topics vary much more than systems, it finds nothing."""
    x, runs = cranfield("AP")
    n, m = x.shape
    labels = np.tile(np.arange(m), n)
    ours = stats.tukey_hsd(x, runs)
    anova = stats.two_way_anova(x, runs)
    one_way = pairwise_tukeyhsd(x.ravel(), labels)
    assert one_way.variance == pytest.approx(anova.within_system_variance, rel=1e-10)
    assert one_way.df_total == m * (n - 1)
    centred = pairwise_tukeyhsd((x - x.mean(axis=1, keepdims=True)).ravel(), labels)
    assert centred.meandiffs == pytest.approx([p.diff for p in ours.pairs], abs=1e-12)
    assert centred.variance * (m * n - m) / ((m - 1) * (n - 1)) == pytest.approx(ours.mse, rel=1e-10)
    # the same sum of squares divided by m (n - 1) instead of (m - 1)(n - 1), and those df:
    q = np.abs(centred.meandiffs) / math.sqrt(centred.variance / n)
    assert centred.pvalues == pytest.approx(scipy.stats.studentized_range.sf(q, m, m * (n - 1)), rel=1e-6)
    assert [p.p for p in ours.pairs] == pytest.approx(
        scipy.stats.studentized_range.sf(q * math.sqrt((m - 1) / m), m, (m - 1) * (n - 1)), rel=1e-6
    )
    # Systems 0.02 apart on every topic, topics far apart: blocking sees it, the one-way test not.
    rng = np.random.default_rng(11)
    y = rng.uniform(0, 1, (60, 1)) + np.array([0.0, 0.02, 0.04]) + rng.normal(0, 0.01, (60, 3))
    assert min(p.p for p in stats.tukey_hsd(y, ["a", "b", "c"]).pairs) < 1e-10
    assert min(pairwise_tukeyhsd(y.ravel(), np.tile(np.arange(3), 60)).pvalues) > 0.5


def test_classic_degenerate_and_errors():
    same = np.repeat(np.array([[0.1], [0.5], [0.3]]), 3, axis=1)
    assert [p.p for p in stats.tukey_hsd(same, ["a", "b", "c"]).pairs] == [1.0, 1.0, 1.0]
    with pytest.raises(DataError, match="at least 2 systems"):
        stats.tukey_hsd(np.ones((3, 1)), ["a"])


# --- randomised: the draws, rebuilt in plain loops -----------------------------------------------


def _reference(x: np.ndarray, permutations: int, seed: int, random_bits: int | None = None) -> list[float]:
    """The randomised Tukey HSD p-values, one permutation and one topic at a time, drawing as
    _largest_differences' docstring defines: streams of 1,000 permutations from
    default_rng(seed).spawn, w-bit keys from random_raw words, argsort of each topic's keys by
    their bits above the system index, tied topics drawn again from the stream's spare generator."""
    n, m = x.shape
    width = 32 if m <= 64 else 64
    dtype = np.dtype(f"<u{width // 8}")
    b = max(1, (m - 1).bit_length())
    bits = width - b if random_bits is None else random_bits
    streams = np.random.default_rng(seed).spawn(math.ceil(permutations / 1000))
    largest = []
    for k, rng in enumerate(streams):
        spare = None
        for _ in range(k * 1000, min(permutations, (k + 1) * 1000)):
            keys = rng.bit_generator.random_raw(math.ceil(n * m * width / 64)).view(dtype)[: n * m].reshape(n, m)
            sums = np.zeros(m)
            for t in range(n):
                key = [(int(v) >> b) % (1 << bits) for v in keys[t]]
                while len(set(key)) < m:
                    spare = spare if spare is not None else rng.spawn(1)[0]
                    raw = spare.bit_generator.random_raw(math.ceil(m * width / 64)).view(dtype)[:m]
                    key = [(int(v) >> b) % (1 << bits) for v in raw]
                order = sorted(range(m), key=lambda s: key[s])  # position i: the i-th smallest key
                for position, system in enumerate(order):
                    sums[position] += x[t, system]
            largest.append(max(sums) - min(sums))
    totals = x.sum(axis=0)
    tol = 1e-9 * float(np.sum(x.max(axis=1) - x.min(axis=1)))
    out = []
    for i, j in itertools.combinations(range(m), 2):
        hits = sum(1 for r in largest if r >= abs(totals[i] - totals[j]) - tol)
        out.append((hits + 1) / (permutations + 1))
    return out


@pytest.mark.parametrize(
    "x, permutations, seed",
    [
        (synthetic(6, 4, 1), 300, 0),
        (synthetic(5, 3, 2, discrete=True), 2500, 7),  # three streams; P@10-like ties
        (synthetic(3, 5, 3)[:, :5], 200, 3),  # n*m odd: the last word's second key unused
        (synthetic(3, 70, 4), 40, 5),  # more than 64 systems: 64-bit keys
        (cranfield("P@10")[0][:40], 150, 42),
    ],
)
def test_randomized_equals_the_plain_loop_rebuild(x, permutations, seed):
    m = x.shape[1]
    ours = stats.randomized_tukey_hsd(x, NAMES[:m], permutations=permutations, seed=seed)
    assert [p.p for p in ours.pairs] == _reference(x, permutations, seed)
    assert (ours.permutations, ours.seed, ours.topics) == (permutations, seed, x.shape[0])


def test_randomized_redraws_tied_keys_as_the_plain_loop_does(monkeypatch):
    """With 3 random bits a key, topics tie often and draw again from the spare generators."""
    monkeypatch.setattr(tukey, "_RANDOM_BITS", 3)
    x = synthetic(7, 4, 9)
    ours = stats.randomized_tukey_hsd(x, NAMES[:4], permutations=1200, seed=4)
    assert [p.p for p in ours.pairs] == _reference(x, 1200, 4, random_bits=3)


def test_randomized_does_not_depend_on_threads(monkeypatch):
    x = synthetic(30, 6, 5)
    monkeypatch.setenv("HARNESS_THREADS", "1")
    one = stats.randomized_tukey_hsd(x, NAMES[:6], permutations=3000, seed=1)
    monkeypatch.setenv("HARNESS_THREADS", "2")
    assert stats.randomized_tukey_hsd(x, NAMES[:6], permutations=3000, seed=1) == one


# --- randomised: statistically right -------------------------------------------------------------


def test_randomized_agrees_with_exact_enumeration():
    """4 topics x 3 systems: all 6**4 arrangements enumerated; each pair's exact p is the share
    whose largest difference reaches the pair's."""
    x = np.array([[0.2, 0.4, 0.3], [0.5, 0.6, 0.7], [0.1, 0.3, 0.2], [0.4, 0.8, 0.6]])
    largest = []
    for combo in itertools.product(itertools.permutations(range(3)), repeat=4):
        sums = sum(x[t, list(p)] for t, p in enumerate(combo))
        largest.append(sums.max() - sums.min())
    largest = np.array(largest)
    totals = x.sum(axis=0)
    exact = [np.mean(largest >= abs(totals[i] - totals[j]) - 1e-12) for i, j in itertools.combinations(range(3), 2)]
    B = 20_000
    ours = stats.randomized_tukey_hsd(x, ["a", "b", "c"], permutations=B, seed=2)
    for pair, e in zip(ours.pairs, exact):
        assert abs(pair.p - e) < 4.5 * math.sqrt(e * (1 - e) / B) + 1 / B, (pair, e)


def test_randomized_with_two_systems_is_the_sign_flip_test():
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, 14)
    x = np.column_stack([base, np.clip(base + rng.normal(0.05, 0.1, 14), 0, 1)])
    exact = stats.exact_randomization(x[:, 1], x[:, 0])
    B = 20_000
    p = stats.randomized_tukey_hsd(x, ["a", "b"], permutations=B, seed=8).pairs[0].p
    assert abs(p - exact) < 4.5 * math.sqrt(exact * (1 - exact) / B) + 1 / B


def test_randomized_holds_the_family_wise_error_rate_under_the_null():
    """300 matrices where no system differs (topic difficulty shared, noise i.i.d.): the share
    with any of the 6 pairs at p < 0.05 is about 0.05 (binomial sd 0.013); uncorrected paired
    t-tests on the same matrices find a "difference" in about a quarter of them."""
    rng = np.random.default_rng(0)
    family = pairwise = 0
    for k in range(300):
        x = rng.beta(2, 3, (20, 1)) + rng.normal(0, 0.1, (20, 4))
        family += min(p.p for p in stats.randomized_tukey_hsd(x, list("abcd"), permutations=199, seed=k).pairs) < 0.05
        pairwise += (
            min(scipy.stats.ttest_rel(x[:, i], x[:, j]).pvalue for i, j in itertools.combinations(range(4), 2)) < 0.05
        )
    assert 0.01 <= family / 300 <= 0.10
    assert pairwise / 300 > 0.15


@pytest.mark.parametrize("measure", CRANFIELD_MEASURES)
def test_randomized_on_cranfield_is_family_wise_and_close_to_the_classic(measure):
    """On real scores: p grows as |diff| shrinks; each pair's family-wise p is at least its own
    paired randomization p (the largest of all differences reaches further than one pair's); and
    the randomised test is close to the classic one but no smaller (beyond Monte Carlo error):
    its permutations also shuffle the real differences between the other systems, which widens
    its null distribution (on Cranfield by up to 0.1, on P@10's discrete scores)."""
    x, runs = cranfield(measure)
    B = 4000
    rt = stats.randomized_tukey_hsd(x, runs, permutations=B, seed=42)
    classic = stats.tukey_hsd(x, runs)
    ordered = sorted(rt.pairs, key=lambda p: abs(p.diff))
    assert all(a.p >= b.p for a, b in zip(ordered, ordered[1:]))
    for pair, c in zip(rt.pairs, classic.pairs):
        i, j = runs.index(pair.baseline), runs.index(pair.run)
        own = stats.randomization(x[:, j], x[:, i], permutations=B, seed=42)
        assert pair.p >= own - 4.5 * math.sqrt(own * (1 - own) / B) - 2 / B
        se = math.sqrt(c.p * (1 - c.p) / B)
        assert c.p - 4.5 * se - 2 / B <= pair.p <= c.p + 0.12, (pair, c)


def test_the_known_cranfield_figure_pairwise_against_family_wise():
    """The project lead's measurement on Cranfield's five runs (BM25 k1 0.6, 0.9, 1.2, Dirichlet,
    JM; AP): BM25 k1=0.6 against k1=0.9 is "significant" for the paired t-test alone (p 6e-5), but
    not once every pair of the five is in the family (randomised Tukey p about 0.43), while the
    ANOVA finds the five different."""
    x, runs = cranfield("AP", path=FIVE)
    assert scipy.stats.ttest_rel(x[:, 0], x[:, 1]).pvalue == pytest.approx(6.226e-05, rel=1e-3)
    B = 10_000
    p = stats.randomized_tukey_hsd(x, runs, permutations=B, seed=42).pvalue("bm25 k1=0.6", "bm25 k1=0.9")
    assert abs(p - 0.43) < 4.5 * math.sqrt(0.43 * 0.57 / B) + 0.005
    assert stats.two_way_anova(x, runs).system.p < 1e-9


def test_randomized_arguments():
    x = synthetic(5, 3, 0)
    with pytest.raises(ValueError, match="permutations must be an integer"):
        stats.randomized_tukey_hsd(x, ["a", "b", "c"], permutations=0)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        stats.randomized_tukey_hsd(x, ["a", "b", "c"], seed=-1)
    same = np.repeat(np.array([[0.1], [0.5], [0.3]]), 3, axis=1)
    assert [p.p for p in stats.randomized_tukey_hsd(same, ["a", "b", "c"], permutations=99).pairs] == [1.0] * 3


def test_result_lookups_and_doctests():
    x, runs = cranfield("nDCG@10", ("bm25", "dirichlet mu=1000", "dirichlet mu=4000"))
    r = stats.tukey_hsd(x, runs)
    assert r.pvalue("dirichlet mu=4000", "bm25") == r.pvalue("bm25", "dirichlet mu=4000") == r.pairs[1].p
    p = r.p_matrix()
    assert np.array_equal(p, p.T) and np.all(np.diag(p) == 1.0) and p[0, 2] == r.pairs[1].p
    with pytest.raises(KeyError, match="no pair"):
        r.pvalue("bm25", "bm25")
    assert doctest.testmod(tukey).failed == 0
