"""Paired tests of two runs' per-topic scores: t-test, Wilcoxon signed-rank, effect size
(conventions: ``harness.stats``)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from harness import lazy
from harness.errors import DataError
from harness.stats.checks import diff

stats = lazy.module("scipy.stats")

# --- paired tests: scipy.stats, with the module's conventions for degenerate inputs ---------------


def paired_t(a, b) -> float:
    """Two-sided p-value of the paired t-test of ``a`` against ``b``:
    ``scipy.stats.ttest_rel(a, b).pvalue``. Needs at least 2 topics. Identical runs give 1.0
    (scipy: NaN); constant non-zero differences give 0.0 (scipy: NaN, the t statistic is
    infinite)."""
    d = diff(a, b)
    if d.size < 2:
        raise DataError("paired scores", f"the t-test needs at least 2 topics (got {d.size})")
    if np.all(d == d[0]):
        return 1.0 if d[0] == 0 else 0.0
    with warnings.catch_warnings():
        # Differences equal but for float noise (0.3 - 0.2 vs 0.2 - 0.1) make scipy warn of
        # "catastrophic cancellation"; its p-value is still the one we return.
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(stats.ttest_rel(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)).pvalue)


def wilcoxon(a, b) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test: ``scipy.stats.wilcoxon(a - b)`` with
    scipy 1.18's defaults, which are the harness's conventions: ``zero_method="wilcox"`` (zero
    differences are dropped before ranking), ``correction=False``, ``method="auto"``: the exact
    null distribution for n <= 50 topics without zeros or tied ``|d|``; all 2**n sign flips of
    the tie-averaged ranks for n <= 13 with zeros or ties; otherwise the normal approximation
    with the tie-corrected variance. Ties are exact float equality of ``|a - b|``.

    When every difference is zero the runs are identical and the p-value is 1.0 (scipy: NaN)."""
    d = diff(a, b)
    if not np.any(d):
        return 1.0
    with warnings.catch_warnings():
        # "Exact p-value calculation does not work if there are zeros": scipy then switches
        # method itself, as documented above; the warning says nothing the docstring does not.
        warnings.simplefilter("ignore", UserWarning)
        return float(stats.wilcoxon(d).pvalue)


def cohens_d_paired(a, b) -> float:
    """Paired effect size ``mean(d) / std(d, ddof=1)`` (Cohen's d_z). Identical runs give 0.0;
    constant non-zero differences give ``+inf`` or ``-inf`` (no spread, all in one direction).
    Needs at least 2 topics."""
    d = diff(a, b)
    if d.size < 2:
        raise DataError("paired scores", f"the paired effect size needs at least 2 topics (got {d.size})")
    if np.all(d == d[0]):
        return 0.0 if d[0] == 0 else math.copysign(math.inf, float(d[0]))
    return float(d.mean() / d.std(ddof=1))
