"""Multiple-comparison corrections of a family of p-values."""

from __future__ import annotations

import numpy as np

from harness.policies import CORRECTIONS
from harness.stats import checks


def correct(pvalues, method: str) -> np.ndarray:
    """Adjusted p-values for a family of tests, in the input order, clipped to 1; equal to
    ``statsmodels.stats.multitest.multipletests(p, method=...)[1]`` with ``"bonferroni"``,
    ``"holm"`` and ``"fdr_bh"`` (our ``"bh"``). ``"none"`` returns the p-values unchanged.

    >>> correct([0.01, 0.02, 0.03, 0.04], "bh").tolist()
    [0.04, 0.04, 0.04, 0.04]
    """
    method = checks.one_of("correction", method, CORRECTIONS)
    p = np.array(pvalues, dtype=np.float64).reshape(-1)
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError(f"p-values must be in [0, 1] (got {p.tolist()!r})")
    m = p.size
    if method == "none" or m == 0:
        return p
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")  # tied p-values get equal adjusted values anyway
    ps = p[order]
    if method == "holm":
        adj = np.maximum.accumulate(ps * np.arange(m, 0, -1))
    else:  # bh
        adj = np.minimum.accumulate((ps / (np.arange(1, m + 1) / m))[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out
