"""harness.stats.meta against statsmodels' combine_effects (DerSimonian-Laird and Paule-Mandel:
pooled effects, variances, intervals, Q, its p, I2, tau2), the per-collection effects against
scipy, and the case where statsmodels 0.15 departs from DerSimonian & Laird (tau2 < 0)."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
import scipy.stats
from statsmodels.stats.meta_analysis import combine_effects

from harness import stats
from harness.errors import DataError
from harness.stats import meta

from .study_data import FIVE, cranfield, synthetic

# statsmodels' Paule-Mandel iteration stops at |Q(tau2) - (k - 1)| < atol (1e-5 by default) and
# returns tau2 = 0 whenever a step lands where Q(tau2) - (k - 1) < 0, even by float noise (-9e-16
# at the root, on test_meta_analysis_of_collections_equals_combine_effects' data with atol 1e-9).
# Its default tolerance stops before the root, within about 1e-8 of it; ours is the root.
PM = {"rel": 1e-6}


def _heterogeneous(k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """k collections' effects spread more than their variances explain (Q > k - 1)."""
    rng = np.random.default_rng(seed)
    v = rng.uniform(0.5e-4, 4e-4, k)
    y = rng.normal(0.02, 0.03, k) + rng.normal(0, np.sqrt(v))
    return y, v


def _assert_equal(ours: stats.MetaAnalysis, ref, level: float = 0.95, rel: float = 1e-10) -> None:
    """``rel``: the random-effects figures' tolerance (Paule-Mandel: statsmodels' iteration's)."""
    assert ours.fixed.effect == pytest.approx(ref.mean_effect_fe, rel=1e-12)
    assert ours.fixed.variance == pytest.approx(ref.var_eff_w_fe, rel=1e-12)
    assert ours.random.effect == pytest.approx(ref.mean_effect_re, rel=rel)
    assert ours.random.variance == pytest.approx(ref.var_eff_w_re, rel=rel)
    assert ours.Q == pytest.approx(ref.q, rel=1e-12)
    assert ours.tau2 == pytest.approx(ref.tau2, rel=max(rel, 1e-9), abs=1e-15)
    assert ours.I2 == pytest.approx(max(0.0, ref.i2), rel=1e-12)  # statsmodels leaves I2 < 0 when Q < k - 1
    assert ours.p_heterogeneity == pytest.approx(ref.test_homogeneity().pvalue, rel=1e-10)
    fe, re, _, _ = ref.conf_int(alpha=1 - level)
    assert (ours.fixed.ci_low, ours.fixed.ci_high) == pytest.approx(tuple(fe), rel=1e-10)
    assert (ours.random.ci_low, ours.random.ci_high) == pytest.approx(tuple(re), abs=max(rel, 1e-9) * np.ptp(re))
    low, high = ref.conf_int_samples(alpha=1 - level)
    assert [c.ci_low for c in ours.collections] == pytest.approx(list(low), rel=1e-12)
    assert [c.ci_high for c in ours.collections] == pytest.approx(list(high), rel=1e-12)


@pytest.mark.parametrize("k, seed", [(2, 1), (3, 2), (5, 3), (13, 4), (40, 5)])
def test_dersimonian_laird_equals_combine_effects(k, seed):
    y, v = _heterogeneous(k, seed)
    ref = combine_effects(y, v, method_re="dl")
    assert ref.q > k - 1  # where statsmodels' tau2 is DerSimonian & Laird's
    _assert_equal(stats.combine(y, v), ref)


@pytest.mark.parametrize("k, seed", [(3, 6), (5, 7), (13, 8)])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_paule_mandel_equals_combine_effects(k, seed, level):
    y, v = _heterogeneous(k, seed)
    ours = stats.combine(y, v, method="pm", level=level)
    _assert_equal(ours, combine_effects(y, v, method_re="pm"), level, **PM)
    w = 1 / (v + ours.tau2)  # ours is the root of Paule and Mandel's equation
    assert np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2) == pytest.approx(k - 1, rel=1e-12)


def test_where_statsmodels_departs_from_dersimonian_laird():
    """Collections agreeing more than chance predicts (Q < k - 1): DerSimonian & Laird's tau2 is
    max(0, ...) = 0, so the random-effects estimate is the fixed one, and I2 is 0. statsmodels
    0.15 leaves tau2 negative (its random-effects mean then lies outside every effect, its
    interval NaN) and I2 below 0; its Paule-Mandel estimate is 0 there, and equals ours."""
    y, v = np.array([0.10, 0.11, 0.09, 0.10]), np.array([0.01, 0.02, 0.015, 0.01])
    ours = stats.combine(y, v)
    assert ours.tau2 == 0 and ours.I2 == 0
    assert ours.random.effect == ours.fixed.effect and ours.random.variance == ours.fixed.variance
    with np.errstate(invalid="ignore"):
        dl = combine_effects(y, v, method_re="dl")
    assert dl.tau2 < 0 and dl.i2 < -100 and not y.min() <= dl.mean_effect_re <= y.max()
    _assert_equal(ours, combine_effects(y, v, method_re="pm"))
    assert stats.combine(y, v, method="pm") == ours.__class__(**{**ours.__dict__, "method": "pm"})


def test_paired_effects_against_scipy():
    x, runs = cranfield("AP", path=FIVE)
    run, base = x[:, 1], x[:, 0]
    d = run - base
    raw, raw_var = stats.paired_effect(run, base)
    assert raw == pytest.approx(d.mean(), rel=1e-14)
    assert raw_var == pytest.approx(scipy.stats.sem(d) ** 2, rel=1e-12)
    dz, dz_var = stats.paired_effect(run, base, "standardized")
    t = scipy.stats.ttest_rel(run, base).statistic
    assert dz == pytest.approx(t / math.sqrt(d.size), rel=1e-12)  # t = d_z sqrt(n)
    assert dz_var == pytest.approx(1 / d.size + dz**2 / (2 * d.size), rel=1e-14)


@pytest.mark.parametrize("effect", ["raw", "standardized"])
@pytest.mark.parametrize("method", ["dl", "pm"])
def test_meta_analysis_of_collections_equals_combine_effects(effect, method):
    """Cranfield's 225 topics cut into five "collections", and synthetic collections of other
    sizes and score scales: each collection's effect as paired_effect gives it, combined."""
    x, runs = cranfield("nDCG@10", path=FIVE)
    scores = {f"cranfield-{k}": (x[k::5, 2], x[k::5, 0]) for k in range(5)}
    for k, (n, scale) in enumerate([(50, 1.0), (120, 0.5), (30, 2.0)]):
        s = synthetic(n, 2, 10 + k) * scale
        scores[f"synthetic-{k}"] = (s[:, 1], s[:, 0])
    ours = stats.meta_analysis(scores, effect=effect, method=method)
    pairs = [stats.paired_effect(run, base, effect) for run, base in scores.values()]
    y, v = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    ref = combine_effects(y, v, method_re=method)
    if ref.q > len(y) - 1 or method == "pm":
        _assert_equal(ours, ref, **(PM if method == "pm" else {}))
    else:
        _assert_equal(ours, combine_effects(y, v, method_re="pm"))
    assert [c.collection for c in ours.collections] == list(scores)
    assert [c.effect for c in ours.collections] == pytest.approx(y.tolist(), rel=1e-14)
    assert (ours.method, ours.level, ours.df) == (method, 0.95, len(scores) - 1)


def test_errors_name_the_collection():
    x = synthetic(20, 2, 1)
    with pytest.raises(DataError, match="collection 'same': the 20 differences are all 0.0: with no spread"):
        stats.meta_analysis({"a": (x[:, 1], x[:, 0]), "same": (x[:, 0], x[:, 0])})
    # differences equal but for float noise (0.4 - 0.3 != 0.8 - 0.7): no spread, not a weight of 1e31
    assert np.ptp(np.subtract([0.4, 0.8, 0.2], [0.3, 0.7, 0.1])) > 0
    for effect in ("raw", "standardized"):
        with pytest.raises(DataError, match="the 3 differences are all 0.10000000000000003: with no spread"):
            stats.paired_effect([0.4, 0.8, 0.2], [0.3, 0.7, 0.1], effect)
    assert stats.no_effect([0.4, 0.8, 0.2], [0.3, 0.7, 0.1]).startswith("differences all equal")
    assert stats.no_effect([0.5], [0.4]) == "fewer than 2 topics" and stats.no_effect([0.5, 0.4], [0.4, 0.4]) is None
    with pytest.raises(DataError, match="at least 2 collections"):
        stats.meta_analysis({"a": (x[:, 1], x[:, 0])})
    with pytest.raises(DataError, match="collection 'b': an effect must be finite and its variance finite and > 0"):
        stats.combine([0.1, 0.2], [0.01, 0.0], ["a", "b"])
    with pytest.raises(ValueError, match="method must be one of 'dl', 'pm'"):
        stats.combine([0.1, 0.2], [0.01, 0.02], method="reml")
    with pytest.raises(ValueError, match="effect must be one of 'raw', 'standardized'"):
        stats.paired_effect(x[:, 1], x[:, 0], "hedges")
    with pytest.raises(ValueError, match="one distinct name per collection"):
        stats.combine([0.1, 0.2], [0.01, 0.02], ["a", "a"])
    assert doctest.testmod(meta).failed == 0
