"""harness.stats.anova against statsmodels: anova_lm of ols("score ~ C(system) + C(topic)"), types
1 and 2, on synthetic and on Cranfield's real scores; the within-system variance against a one-way
OLS; the degenerate tables and the argument errors."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

from harness import stats
from harness.errors import DataError
from harness.stats import anova

from .study_data import CRANFIELD_MEASURES, cranfield, synthetic


def _frame(x: np.ndarray, names) -> pd.DataFrame:
    n, m = x.shape
    return pd.DataFrame(
        {"score": x.ravel(), "topic": np.repeat([f"t{t}" for t in range(n)], m), "system": np.tile(list(names), n)}
    )


def _assert_table(ours: stats.Anova, x: np.ndarray, names, typ: int) -> None:
    ref = anova_lm(ols("score ~ C(system) + C(topic)", _frame(x, names)).fit(), typ=typ)
    for row, label in zip(ours.rows, ("C(system)", "C(topic)", "Residual")):
        assert row.df == ref.loc[label, "df"]
        assert row.sum_sq == pytest.approx(ref.loc[label, "sum_sq"], rel=1e-9, abs=1e-12)
        if typ == 1:  # anova_lm's type 2 table has no mean_sq column
            assert row.mean_sq == pytest.approx(ref.loc[label, "mean_sq"], rel=1e-9, abs=1e-12)
        if label == "Residual":
            assert math.isnan(row.F) and math.isnan(row.p)
            assert np.isnan(ref.loc[label, "F"]) and np.isnan(ref.loc[label, "PR(>F)"])
        else:
            assert row.F == pytest.approx(ref.loc[label, "F"], rel=1e-8)
            assert row.p == pytest.approx(ref.loc[label, "PR(>F)"], rel=1e-7, abs=1e-300)


CASES = [
    (synthetic(2, 2, 1), 1),
    (synthetic(4, 3, 2), 1),
    (synthetic(25, 5, 3), 2),
    (synthetic(50, 12, 4, discrete=True), 1),  # ties and zeros, like P@10
    (synthetic(120, 8, 5, effect=0.0), 2),  # no system effect
]


@pytest.mark.parametrize("x, typ", CASES)
def test_equals_statsmodels_anova_lm_on_synthetic_scores(x, typ):
    names = [f"run{i}" for i in range(x.shape[1])]
    a = stats.two_way_anova(x, names)
    _assert_table(a, x, names, typ)
    assert a.topics == x.shape[0] and a.systems == tuple(names)
    assert a.means == pytest.approx(x.mean(axis=0).tolist())


@pytest.mark.parametrize("measure", CRANFIELD_MEASURES)
def test_equals_statsmodels_anova_lm_on_cranfield(measure):
    x, runs = cranfield(measure)
    a = stats.two_way_anova(x, runs)
    _assert_table(a, x, runs, 1)
    _assert_table(a, x, runs, 2)  # balanced: the same sums of squares
    # BM25 and the six Dirichlet mu values differ on AP (means 0.241 to 0.288 over 225 topics)
    if measure == "AP":
        assert a.system.p < 1e-6


def test_within_system_variance_is_the_one_way_residual_mean_square():
    x, runs = cranfield("nDCG@10")
    one_way = ols("score ~ C(system)", _frame(x, runs)).fit()
    assert stats.two_way_anova(x, runs).within_system_variance == pytest.approx(one_way.mse_resid, rel=1e-10)


def test_degenerate_tables():
    same = np.repeat(np.array([[0.1], [0.5], [0.3]]), 3, axis=1)  # every system scores alike
    a = stats.two_way_anova(same, ["a", "b", "c"])
    assert a.system.sum_sq == 0 and a.residual.sum_sq == pytest.approx(0, abs=1e-30)
    assert a.system.F == 0 and a.system.p == 1.0
    flat = np.full((3, 3), 0.3)  # nothing varies at all
    a = stats.two_way_anova(flat, ["a", "b", "c"])
    assert math.isnan(a.system.F) and a.system.p == 1.0 and a.residual.sum_sq == 0
    shifted = np.array([[0.1, 0.2], [0.5, 0.6], [0.3, 0.4]])  # b = a + 0.1 on every topic
    a = stats.two_way_anova(shifted, ["a", "b"])
    assert a.residual.sum_sq < 1e-30
    assert a.system.p < 1e-12  # exactly 0.0, or float noise in the residual: either way decisive


def test_argument_errors():
    x = synthetic(5, 3, 0)
    with pytest.raises(DataError, match="3 columns of scores but 2 system names"):
        stats.two_way_anova(x, ["a", "b"])
    with pytest.raises(ValueError, match="named twice: 'a'"):
        stats.two_way_anova(x, ["a", "b", "a"])
    with pytest.raises(DataError, match="at least 2 systems"):
        stats.two_way_anova(x[:, :1], ["a"])
    with pytest.raises(DataError, match="at least 2 topics"):
        stats.two_way_anova(x[:1], ["a", "b", "c"])
    bad = x.copy()
    bad[2, 1] = np.nan
    with pytest.raises(DataError, match="topic 2 \\(row\\), system 'b' is nan"):
        stats.two_way_anova(bad, ["a", "b", "c"])
    with pytest.raises(DataError, match="topics x systems matrix"):
        stats.two_way_anova(x[0], ["a", "b", "c"])
    with pytest.raises(ValueError, match="sequence of names"):
        stats.two_way_anova(x, "abc")


def test_fields_and_doctests():
    assert stats.ANOVA_FIELDS == ("source", "df", "sum_sq", "mean_sq", "F", "p")
    assert doctest.testmod(anova).failed == 0
