"""harness.stats against oracles that are not our code: scipy (paired tests), statsmodels
(corrections), exact enumeration in rational arithmetic (randomization), and hand computation."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats

from harness import stats
from harness.errors import DataError

from .conftest import multipletests


def _pairs():
    """Seeded (a, b) per-topic vectors: continuous, discrete (ties and zeros), tiny and large."""
    rng = np.random.default_rng(7)
    out = []
    for n in (2, 3, 5, 8, 12, 13, 14, 25, 50, 51, 200, 5000):
        a = rng.uniform(0, 1, n)
        out.append((a, np.clip(a + rng.normal(0.03, 0.1, n), 0, 1)))  # continuous
        a10 = rng.integers(0, 11, n) / 10  # like P@10
        b10 = np.clip(a10 + rng.integers(-2, 3, n) / 10, 0, 1)
        out.append((a10, b10))  # ties, zeros
    out.append((np.array([0.5, 0.2, 0.9, 0.1, 0.4]), np.array([0.5, 0.1, 0.3, 0.2, 0.4])))
    return out


PAIRS = _pairs()


# scipy has no t p-value for constant differences, nor a Wilcoxon p-value for identical runs:
# those pairs are left out here (the generator makes one at n=2) and tested in test_identical_runs.
T_PAIRS = [(a, b) for a, b in PAIRS if not np.all(a - b == (a - b)[0])]
W_PAIRS = [(a, b) for a, b in PAIRS if not np.all(a == b)]


@pytest.mark.parametrize("a, b", T_PAIRS)
def test_paired_t_equals_scipy(a, b):
    assert stats.paired_t(a, b) == pytest.approx(scipy.stats.ttest_rel(a, b).pvalue, rel=1e-12, abs=1e-12)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("a, b", W_PAIRS)
def test_wilcoxon_equals_scipy_defaults(a, b):
    expected = scipy.stats.wilcoxon(a, b).pvalue
    assert stats.wilcoxon(a, b) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.filterwarnings("ignore")
def test_wilcoxon_covers_scipys_three_paths():
    # exact (n <= 50, no ties/zeros), sign flips of ranks (n <= 13 with ties/zeros),
    # normal approximation (n > 50, or 14..50 with ties/zeros): each against scipy.
    cases = [
        (np.arange(1.0, 11.0) * np.array([1, -1, 1, 1, 1, -1, 1, 1, 1, 1]), "exact"),
        (np.array([0.0, 0.1, -0.1, 0.2, 0.3, 0.3, -0.5]), "sign flips"),
        (np.array([0.0] * 3 + [0.1, -0.1, 0.2] * 6), "normal"),
        (np.random.default_rng(1).normal(0.1, 1, 80), "normal"),
    ]
    for d, _path in cases:
        assert stats.wilcoxon(d, np.zeros_like(d)) == pytest.approx(
            scipy.stats.wilcoxon(d).pvalue, rel=1e-12, abs=1e-12
        ), _path


def _wilcoxon_by_enumeration(d: list[str]) -> Fraction:
    """Two-sided Wilcoxon p by enumerating every sign pattern of the tie-averaged ranks of the
    non-zero differences, in rational arithmetic (zeros dropped: zero_method="wilcox")."""
    q = [Fraction(x) for x in d if Fraction(x) != 0]
    absq = sorted(abs(x) for x in q)
    rank = {v: Fraction(sum(i + 1 for i, w in enumerate(absq) if w == v), absq.count(v)) for v in set(absq)}
    ranks = [rank[abs(x)] for x in q]
    r_plus = sum(r for r, x in zip(ranks, q) if x > 0)
    sums = [sum(r for r, s in zip(ranks, signs) if s) for signs in itertools.product((0, 1), repeat=len(q))]
    low, high = sum(t <= r_plus for t in sums), sum(t >= r_plus for t in sums)
    return min(Fraction(1), 2 * Fraction(min(low, high), len(sums)))


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(
    "d",
    [
        ["0.3", "-0.1", "0.25", "0.4", "0.05", "-0.2", "0.6", "0.35"],  # exact null distribution
        ["0.1", "-0.1", "0.2", "0.2", "0.3", "0", "-0.4", "0.5", "0.1", "0.6"],  # ties and a zero: sign flips
        ["0.5", "0.4", "0.3", "0.2", "0.1", "0.05", "0.01"],  # every sign positive
    ],
)
def test_wilcoxon_equals_enumeration(d):
    """An oracle that is not scipy: exact enumeration (scipy's method for n <= 50 without ties or
    zeros, and for n <= 13 with them)."""
    x = np.array([float(v) for v in d])
    assert stats.wilcoxon(x, np.zeros_like(x)) == pytest.approx(float(_wilcoxon_by_enumeration(d)), rel=1e-12)


def test_paired_t_equals_statsmodels():
    """statsmodels' one-sample t-test of the differences (another code path than ttest_rel)."""
    from statsmodels.stats.weightstats import DescrStatsW

    for a, b in T_PAIRS[:10]:
        _, p, _ = DescrStatsW(a - b).ttest_mean(0)
        assert stats.paired_t(a, b) == pytest.approx(p, rel=1e-9)


def test_identical_runs():
    a = np.array([0.1, 0.5, 0.3])
    assert stats.wilcoxon(a, a) == 1.0  # scipy: NaN / error; documented choice
    assert stats.paired_t(a, a) == 1.0
    assert stats.randomization(a, a) == 1.0
    assert stats.bootstrap_test(a, a) == 1.0
    assert stats.cohens_d_paired(a, a) == 0.0
    h = np.array([0.5, 0.25, 0.75])  # dyadic: h + 0.25 - h is exactly 0.25 on every topic
    assert stats.paired_t(h + 0.25, h) == 0.0  # constant non-zero difference
    assert stats.cohens_d_paired(h + 0.25, h) == np.inf
    assert stats.cohens_d_paired(h - 0.25, h) == -np.inf


def test_cohens_d_paired():
    a, b = np.array([0.5, 0.7, 0.2, 0.9]), np.array([0.4, 0.4, 0.3, 0.5])
    d = a - b
    assert stats.cohens_d_paired(a, b) == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-15)


# --- corrections ---------------------------------------------------------------------------------

P_FAMILIES = [
    [0.01, 0.04, 0.03, 0.005],
    [0.02, 0.02, 0.02, 0.5, 0.5],  # ties
    [0.9, 0.95, 0.99, 1.0, 0.999999],  # near 1: must clip to 1
    [0.001],
    [0.04, 0.01, 0.04, 0.01, 0.2, 0.0, 0.04],  # ties and an exact 0
    list(np.random.default_rng(3).uniform(0, 1, 40)),
    list(np.random.default_rng(4).uniform(0, 0.05, 25)),
]


@pytest.mark.parametrize("p", P_FAMILIES)
@pytest.mark.parametrize("ours, theirs", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")])
def test_correct_equals_statsmodels(p, ours, theirs):
    got = stats.correct(p, ours)
    expected = multipletests(np.array(p), method=theirs)[1]
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)
    assert np.all(got <= 1.0) and np.all(got >= np.array(p))


def test_correct_none_and_bad_input():
    np.testing.assert_array_equal(stats.correct([0.2, 0.01], "none"), [0.2, 0.01])
    with pytest.raises(ValueError, match=r"correction must be one of 'none', 'bonferroni', 'holm', 'bh' \(got 'fdr'\)"):
        stats.correct([0.1], "fdr")
    with pytest.raises(ValueError, match=r"p-values must be in \[0, 1\]"):
        stats.correct([0.1, 1.5], "holm")


# --- randomization -------------------------------------------------------------------------------


def test_exact_randomization_by_hand():
    # d = [1, 2, 3], observed |mean| = 2 (|sum| = 6). The 8 sign patterns give sums
    #   +++ 6, ++- 0, +-+ 2, -++ 4, +-- -4, -+- -2, --+ 0, --- -6:
    # only +++ and --- reach |sum| >= 6, so p = 2/8 = 0.25.
    assert stats.exact_randomization([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]) == 0.25


def _rational_exact(d: list[str]) -> float:
    """Exact randomization p in rational arithmetic: no float noise at all."""
    q = [Fraction(x) for x in d]
    obs = abs(sum(q))
    hits = sum(abs(sum(s * x for s, x in zip(signs, q))) >= obs for signs in itertools.product((1, -1), repeat=len(q)))
    return hits / 2 ** len(q)


@pytest.mark.parametrize(
    "d",
    [
        ["0.3", "-0.1", "-0.2", "0.5"],  # flipping {0.3, -0.1, -0.2} ties the observed sum exactly
        ["0.1", "0.2", "0.3", "-0.6", "0.7", "0.1"],
        ["0.1", "0", "-0.1", "0.2", "0.2", "0.4", "-0.3", "0.1", "0.6", "0.7"],
    ],
)
def test_exact_randomization_counts_exact_ties_despite_float_noise(d):
    x = np.array([float(v) for v in d])
    assert stats.exact_randomization(x, np.zeros_like(x)) == _rational_exact(d)


def test_randomization_agrees_with_exact():
    rng = np.random.default_rng(11)
    for n in (10, 12):
        a = rng.uniform(0, 1, n)
        b = a - rng.normal(0.08, 0.3, n)
        exact = stats.exact_randomization(a, b)  # 0.0059 and 0.137
        assert 0.005 < exact < 0.9
        assert abs(stats.randomization(a, b, permutations=10_000, seed=5) - exact) < 0.01


def test_randomization_is_seeded():
    rng = np.random.default_rng(12)
    b = rng.uniform(0, 1, 300)
    a = b + rng.normal(0.012, 0.1, 300)  # p about 0.02
    p1 = stats.randomization(a, b, permutations=5000, seed=1)
    assert stats.randomization(a, b, permutations=5000, seed=1) == p1
    p2 = stats.randomization(a, b, permutations=5000, seed=2)
    assert p2 != p1
    # Two independent estimates of the same p: within 5 standard errors of each other.
    se = np.sqrt(2 * p1 * (1 - p1) / 5000)
    assert abs(p1 - p2) < 5 * se
    assert stats.randomization(a, b, permutations=5000) == stats.randomization(a, b, permutations=5000, seed=42)


def test_randomization_p_is_never_zero_and_handles_odd_sizes():
    for n in (1, 7, 9, 65, 1001):  # not multiples of 8: padding must not matter
        d = np.full(n, 1.0)
        d[0] = 2.0
        p = stats.randomization(d, np.zeros(n), permutations=999, seed=0)
        assert 1 / 1000 <= p <= 1.0
    assert stats.randomization(np.ones(50), np.zeros(50), permutations=999) == 1 / 1000


def test_seed_must_be_given_as_an_integer():
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer \(got None\)"):
        stats.randomization([1.0, 2.0], [0.0, 0.0], seed=None)
    with pytest.raises(ValueError, match="exact_randomization enumerates"):
        stats.exact_randomization(np.ones(21), np.zeros(21))


# --- bootstrap -----------------------------------------------------------------------------------


def test_bootstrap_ci_contains_true_difference_and_is_seeded():
    rng = np.random.default_rng(21)
    b = rng.uniform(0, 1, 4000)
    a = b + 0.05 + rng.normal(0, 0.2, 4000)  # true mean difference 0.05, standard error ~0.003
    low, high = stats.bootstrap_ci(a, b, level=0.95, samples=2000, seed=3)
    assert low < 0.05 < high and high - low < 0.03
    assert low < np.mean(a - b) < high
    assert stats.bootstrap_ci(a, b, level=0.95, samples=2000, seed=3) == (low, high)
    assert stats.bootstrap_ci(a, b, level=0.95, samples=2000, seed=4) != (low, high)
    wide = stats.bootstrap_ci(a, b, level=0.99, samples=2000, seed=3)
    assert wide[0] < low and high < wide[1]


def test_bootstrap_test():
    rng = np.random.default_rng(22)
    b = rng.uniform(0, 1, 200)
    a = b + rng.normal(0, 0.1, 200)
    p_null = stats.bootstrap_test(a, b, samples=2000, seed=1)
    assert p_null == stats.bootstrap_test(a, b, samples=2000, seed=1)
    assert abs(p_null - stats.paired_t(a, b)) < 0.05  # large n: agrees with the t-test
    assert stats.bootstrap_test(a + 0.1, b, samples=2000, seed=1) == 1 / 2001


def test_inputs_are_checked():
    with pytest.raises(DataError, match="same number of topics"):
        stats.paired_t([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(DataError, match="must be finite; position 1 is nan"):
        stats.wilcoxon([0.1, np.nan], [0.1, 0.2])
    with pytest.raises(DataError, match="at least 2 topics"):
        stats.paired_t([0.1], [0.2])
    with pytest.raises(DataError, match="empty"):
        stats.randomization([], [])


# --- compare -------------------------------------------------------------------------------------


def _scores():
    rng = np.random.default_rng(31)
    base = rng.uniform(0, 1, 40)
    return {
        "bm25": {"AP": base, "P@10": np.round(base, 1)},
        "rm3": {"AP": np.clip(base + rng.normal(0.08, 0.05, 40), 0, 1), "P@10": np.round(base, 1) + 0.1},
        "ql": {"AP": np.clip(base + rng.normal(0.0, 0.05, 40), 0, 1), "P@10": np.round(base, 1)},
    }


def test_compare_records():
    scores = _scores()
    pairs = stats.pairs_against("bm25", ["bm25", "rm3", "ql"])
    out = stats.compare(scores, pairs, ["AP", "P@10"], stats.StatsPolicy(test="t", correction="holm"))
    assert [(c.measure, c.baseline, c.run) for c in out] == [
        ("AP", "bm25", "rm3"),
        ("AP", "bm25", "ql"),
        ("P@10", "bm25", "rm3"),
        ("P@10", "bm25", "ql"),
    ]
    c = out[0]
    x, y = scores["bm25"]["AP"], scores["rm3"]["AP"]
    assert c.topics == 40 and c.mean_baseline == x.mean() and c.mean_run == y.mean()
    assert c.diff == pytest.approx(y.mean() - x.mean())
    assert c.p == pytest.approx(scipy.stats.ttest_rel(y, x).pvalue, abs=1e-12)
    assert c.p_corrected == pytest.approx(multipletests([out[0].p, out[1].p], method="holm")[1][0], rel=1e-15)
    assert (c.ci_low, c.ci_high) == stats.bootstrap_ci(y, x, 0.95, 10_000, 42)
    assert c.ci_low < c.diff < c.ci_high and c.reject
    assert c.effect_size == stats.cohens_d_paired(y, x)
    assert (c.wins, c.ties, c.losses) == (int(np.sum(y > x)), int(np.sum(y == x)), int(np.sum(y < x)))
    ql_p10 = out[3]  # identical scores
    assert (ql_p10.wins, ql_p10.ties, ql_p10.losses) == (0, 40, 0)
    assert ql_p10.p == 1.0 and not ql_p10.reject
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.p = 0.5  # frozen


def test_compare_families_and_reproducible_randomization():
    scores = _scores()
    pairs = stats.all_pairs(["bm25", "rm3", "ql"])
    assert pairs == [("bm25", "rm3"), ("bm25", "ql"), ("rm3", "ql")]
    per = stats.compare(scores, pairs, test="randomization", permutations=2000, correction="bh", seed=9)
    every = stats.compare(scores, pairs, test="randomization", permutations=2000, correction="bh", seed=9, family="all")
    raw = [c.p for c in per]
    assert raw == [c.p for c in every]
    # Each p is reproduced by the test alone with the policy's seed.
    c = per[2]
    assert c.p == stats.randomization(scores[c.run][c.measure], scores[c.baseline][c.measure], 2000, seed=9)
    np.testing.assert_allclose([c.p_corrected for c in every], multipletests(raw, method="fdr_bh")[1], rtol=1e-15)
    expected = np.concatenate([multipletests(raw[:3], method="fdr_bh")[1], multipletests(raw[3:], method="fdr_bh")[1]])
    np.testing.assert_allclose([c.p_corrected for c in per], expected, rtol=1e-15)
    assert all(c.reject == (c.p_corrected < 0.05) for c in per + every)


def test_compare_errors_name_the_run_and_measure():
    scores = _scores()
    scores["ql"]["AP"] = scores["ql"]["AP"][:-1]
    with pytest.raises(DataError, match=r"scores\['ql'\]\['AP'\]: 39 topics, but scores\['bm25'\]\['AP'\] has 40"):
        stats.compare(scores, [("bm25", "ql")])
    with pytest.raises(DataError, match=r"scores\['bm25'\]\['nDCG'\]: run 'bm25' has no scores for 'nDCG'"):
        stats.compare(scores, [("bm25", "rm3")], ["nDCG"])
    with pytest.raises(DataError, match="run 'dph' has no scores"):
        stats.compare(scores, [("bm25", "dph")])
    with pytest.raises(TypeError, match="unknown statistics option"):
        stats.compare(scores, [("bm25", "rm3")], tset="t")


def test_policy_is_validated_and_readable():
    p = stats.StatsPolicy(test="randomization", permutations=5000, seed=7, correction="bh", family="all", alpha=0.01)
    assert str(p) == (
        "paired randomization (sign-flip) test (5000 permutations, seed 7); "
        "Benjamini-Hochberg (FDR) correction across all measures and pairs; alpha=0.01; "
        "95% percentile bootstrap CI (10000 samples, seed 7)"
    )
    assert "no correction;" in str(stats.StatsPolicy(correction="none"))
    with pytest.raises(
        ValueError,
        match=r"test must be one of 't', 'wilcoxon', 'randomization', 'bootstrap', 'tukey', 'randomized-tukey' "
        r"\(got 'sign'\)",
    ):
        stats.StatsPolicy(test="sign")
    with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\) \(got 5\)"):
        stats.StatsPolicy(alpha=5)
    with pytest.raises(ValueError, match=r"family must be one of"):
        stats.StatsPolicy(family="pairs")


# --- tuning --------------------------------------------------------------------------------------


def test_cross_validate_obvious_best():
    rng = np.random.default_rng(41)
    topics = [f"q{i}" for i in range(23)]
    base = rng.uniform(0, 0.5, 23)
    settings = {"k1=0.5": base, "k1=0.9": base + 0.2, "k1=1.2": base + 0.1}
    cv = stats.cross_validate(settings, topics, folds=5, seed=1)
    assert [f.chosen for f in cv.folds] == ["k1=0.9"] * 5
    assert cv.heldout_mean == pytest.approx((base + 0.2).mean())
    np.testing.assert_array_equal(cv.heldout, base + 0.2)
    assert sorted(t for f in cv.folds for t in f.test_topics) == sorted(topics)  # a partition
    assert sorted(len(f.test_topics) for f in cv.folds) == [4, 4, 5, 5, 5]
    # Fold assignment depends on the ids and the seed, not the input order.
    order = rng.permutation(23)
    shuffled = stats.cross_validate({k: v[order] for k, v in settings.items()}, [topics[i] for i in order], 5, 1)
    assert [f.test_topics for f in shuffled.folds] == [f.test_topics for f in cv.folds]
    assert shuffled.heldout_mean == pytest.approx(cv.heldout_mean)


def test_cross_validate_scores_only_held_out_topics():
    # "a" is best on q0..q4, "b" on q5..q9. With 2 folds, a fold holding out most of one block picks
    # the setting that wins the other block: the held-out mean is then lower than the peeked best.
    topics = [f"q{i}" for i in range(10)]
    a = np.array([1.0] * 5 + [0.0] * 5)
    b = np.array([0.0] * 5 + [0.9] * 5)
    cv = stats.cross_validate({"a": a, "b": b}, topics, folds=2, seed=0)
    for f in cv.folds:
        test = [topics.index(t) for t in f.test_topics]
        train = [i for i in range(10) if i not in test]
        want = "a" if a[train].mean() >= b[train].mean() else "b"  # ties: first in order
        assert f.chosen == want
        assert f.test_mean == pytest.approx({"a": a, "b": b}[want][test].mean())
    assert cv.heldout_mean <= max(a.mean(), b.mean())
    assert stats.cross_validate({"a": a, "b": a.copy()}, topics, 2, 0).folds[0].chosen == "a"


def test_not_worse_than_best():
    rng = np.random.default_rng(51)
    best = rng.uniform(0.3, 0.7, 60)
    settings = {
        "mu=500": best - 0.2 + rng.normal(0, 0.02, 60),  # clearly worse
        "mu=1000": best,
        "mu=2000": best - 0.001 + rng.normal(0, 0.05, 60),  # indistinguishable
    }
    assert stats.not_worse_than_best(settings, test="t", correction="holm", alpha=0.05) == ["mu=1000", "mu=2000"]
    assert stats.not_worse_than_best(
        settings, test="randomization", correction="bonferroni", alpha=0.05, seed=3, permutations=2000
    ) == ["mu=1000", "mu=2000"]
    assert stats.not_worse_than_best({"only": best}) == ["only"]


def test_docstring_examples():
    import doctest
    import importlib

    attempted = 0
    for name in ("", ".paired", ".resampling", ".corrections", ".compare", ".tuning"):
        module = importlib.import_module("harness.stats" + name)
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted >= 6
