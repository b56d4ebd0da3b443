"""harness.stats.power against statsmodels' TTestPower and FTestAnovaPower: their power functions
to the last digits, their solve_power where its root finder converged, and the definition itself
(power just below the target at one topic fewer) where it did not; Sakai's mapping of the range
of system means onto Cohen's f checked against the noncentral F written with his noncentrality."""

from __future__ import annotations

import doctest
import math
import warnings

import numpy as np
import pytest
import scipy.stats
from statsmodels.formula.api import ols
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from harness import stats
from harness.stats import power

from .study_data import FIVE, cranfield, synthetic

TT, FA = TTestPower(), FTestAnovaPower()


def _solve(solver, **kwargs) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns when its root finder gives up
        return float(np.ravel(solver.solve_power(**kwargs))[0])


def _power(d: float, n: float, alpha: float) -> float:
    """The paired t-test's power by scipy.stats.nct: statsmodels' power where its lower tail is a
    number; where scipy gives NaN for that tail (large noncentrality on few df) it counts 0, and
    it is below P(T < 0) = Phi(-nc), checked to be negligible."""
    df, nc = n - 1, abs(d) * math.sqrt(n)
    crit = scipy.stats.t.isf(alpha / 2, df)
    lower = scipy.stats.nct.cdf(-crit, df, nc)
    if math.isnan(lower):
        assert scipy.stats.norm.sf(nc) < 1e-12
        lower = 0.0
    return float(scipy.stats.nct.sf(crit, df, nc) + lower)


def test_t_power_is_statsmodels_ttest_power():
    effects = [0.0, 0.01, 0.1, 0.3, 0.8, 2.0, 5.0, 9.0]
    for n in (2, 3, 10, 50, 225, 5000):
        ours = power.t_power(np.array(effects), n, 0.05)
        for d, p in zip(effects, ours):
            ref = TT.power(d, n, 0.05)
            assert p == pytest.approx(ref if not math.isnan(ref) else _power(d, n, 0.05), rel=1e-12)
            assert p == pytest.approx(_power(d, n, 0.05), rel=1e-9)
    assert power.t_power(-0.3, 20) == power.t_power(0.3, 20)  # two-sided
    assert power.t_power(0.0, 30, 0.05) == pytest.approx(0.05, rel=1e-12)


@pytest.mark.parametrize("alpha, target", [(0.05, 0.8), (0.01, 0.9), (0.1, 0.5)])
def test_detectable_effect_solves_statsmodels_equation(alpha, target):
    compared = 0
    for n in (2, 3, 5, 10, 30, 50, 225, 1000, 20000):
        d = power.detectable_effect(n, alpha, target)
        assert _power(d, n, alpha) == pytest.approx(target, abs=1e-10)  # exactly the root
        # statsmodels' own solution, where its root finder found one, is within its tolerance (at
        # 2 and 3 topics and alpha 0.01 it gives up and returns its start value, 10)
        sm = _solve(TT, nobs=n, alpha=alpha, power=target)
        if abs(_power(sm, n, alpha) - target) < 1e-4:
            assert d == pytest.approx(sm, rel=1e-4)
            compared += 1
    assert compared >= 7


@pytest.mark.parametrize("alpha, target", [(0.05, 0.8), (0.01, 0.9)])
def test_topics_needed_is_the_fewest_reaching_the_power(alpha, target):
    effects = np.array([0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 3.0, 8.0, 40.0])
    needed = power.topics_needed(effects, alpha, target)
    for d, n in zip(effects, needed):
        assert n >= 2 and _power(d, n, alpha) >= target
        if n > 2:
            assert _power(d, n - 1, alpha) < target
        nobs = _solve(TT, effect_size=d, alpha=alpha, power=target)
        if nobs > 2.5:  # statsmodels brackets from 2 and returns 2 for effects needing 3
            assert n == math.ceil(nobs)
    assert power.topics_needed(math.inf).item() == 2
    assert power.topics_needed(0.0).item() == power.MAX_TOPICS


def test_paired_power_on_cranfield():
    x, runs = cranfield("AP", path=FIVE)
    for j in range(1, 5):
        p = stats.paired_power(x[:, j], x[:, 0], difference=0.02)
        d = x[:, j] - x[:, 0]
        assert p.sd == pytest.approx(d.std(ddof=1), rel=1e-14)
        assert (p.topics, p.alpha, p.power, p.difference) == (225, 0.05, 0.8, 0.02)
        assert p.detectable_difference == pytest.approx(_solve(TT, nobs=225, alpha=0.05, power=0.8) * p.sd, rel=1e-6)
        assert p.topics_needed == math.ceil(_solve(TT, effect_size=0.02 / p.sd, alpha=0.05, power=0.8))
    # BM25 k1 0.6 against 0.9: steady differences (sd 0.035), so 225 topics detect 0.0066 and 7
    # topics would detect 0.05; Dirichlet against BM25 differs more from topic to topic (sd 0.095)
    close, far = stats.paired_power(x[:, 1], x[:, 0]), stats.paired_power(x[:, 3], x[:, 0])
    assert close.detectable_difference < 0.007 < far.detectable_difference
    assert close.topics_needed == 7 < far.topics_needed
    base = np.array([0.5, 0.25, 0.75, 0.0])
    same = stats.paired_power(base + 0.125, base)  # no spread: any difference is detected
    assert (same.sd, same.detectable_difference, same.topics_needed) == (0.0, 0.0, 2)


def test_f_power_is_statsmodels_ftest_anova_power():
    for m in (2, 3, 12, 50):
        for n in (2, 10, 225):
            f = np.array([0.01, 0.1, 0.25, 0.6])
            ours = power.f_power(f, m, n, 0.05)
            assert ours == pytest.approx([FA.power(e, m * n, 0.05, k_groups=m) for e in f], rel=1e-12)


def test_sakai_mapping_of_the_range_onto_cohens_f():
    """Sakai: lambda = n D**2 / (2 sigma**2) on (m - 1, m (n - 1)) degrees of freedom. The power
    written that way with scipy's noncentral F equals FTestAnovaPower's with f = D / sqrt(2 m
    sigma**2), nobs = m n, k_groups = m."""
    for m, n, D, var in [(5, 50, 0.05, 0.04), (12, 30, 0.1, 0.06), (50, 225, 0.02, 0.01)]:
        lam = n * D**2 / (2 * var)
        crit = scipy.stats.f.isf(0.05, m - 1, m * (n - 1))
        sakai = scipy.stats.ncf.sf(crit, m - 1, m * (n - 1), lam)
        assert FA.power(D / math.sqrt(2 * m * var), m * n, 0.05, k_groups=m) == pytest.approx(sakai, rel=1e-9)
        a = stats.anova_power(systems=m, topics=n, variance=var, difference=D)
        f_min = _solve(FA, nobs=m * n, alpha=0.05, power=0.8, k_groups=m)
        assert a.detectable_range == pytest.approx(f_min * math.sqrt(2 * m * var), rel=1e-6)
        assert a.topics_needed == math.ceil(
            _solve(FA, effect_size=D / math.sqrt(2 * m * var), alpha=0.05, power=0.8, k_groups=m) / m
        )
        got = power.f_power(D / math.sqrt(2 * m * var), m, a.topics_needed)
        assert got >= 0.8 > power.f_power(D / math.sqrt(2 * m * var), m, a.topics_needed - 1)


def test_anova_power_from_the_anova_table():
    """The default variance is the one-way ANOVA's residual mean square (statsmodels' OLS of
    score ~ C(system)): Sakai's within-system variance."""
    import pandas as pd

    x, runs = cranfield("nDCG@10", path=FIVE)
    n, m = x.shape
    frame = pd.DataFrame({"score": x.ravel(), "system": np.tile(np.arange(m), n)})
    mse = ols("score ~ C(system)", frame).fit().mse_resid
    a = stats.anova_power(stats.two_way_anova(x, runs))
    assert (a.systems, a.topics) == (5, 225) and a.variance == pytest.approx(mse, rel=1e-10)
    assert a.topics_needed == math.ceil(
        _solve(FA, effect_size=0.05 / math.sqrt(2 * m * mse), alpha=0.05, power=0.8, k_groups=m) / m
    )
    other = stats.anova_power(stats.two_way_anova(x, runs), variance=0.01, systems=10)
    assert (other.systems, other.topics, other.variance) == (10, 225, 0.01)


def test_arguments():
    x = synthetic(20, 2, 1)
    with pytest.raises(ValueError, match="power must be a number in \\(0, 1\\)"):
        stats.paired_power(x[:, 1], x[:, 0], power=1.0)
    with pytest.raises(ValueError, match="difference must be a positive number"):
        stats.paired_power(x[:, 1], x[:, 0], difference=0)
    with pytest.raises(ValueError, match="at least 2 topics"):
        stats.paired_power([0.1], [0.2])
    with pytest.raises(ValueError, match="needs an ANOVA table, or systems, topics and variance"):
        stats.anova_power(systems=3, topics=10)
    with pytest.raises(ValueError, match="variance must be a positive number"):
        stats.anova_power(systems=3, topics=10, variance=-1.0)
    assert doctest.testmod(power).failed == 0
