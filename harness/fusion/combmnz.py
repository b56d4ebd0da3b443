"""combmnz (Fox and Shaw, TREC-2 1993): combsum's sum times the number of runs that return the
document (within ``depth``)."""

from __future__ import annotations

import numpy as np

from harness.fusion.combsum import rescore

__all__ = ["rescore", "fused"]


def fused(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The fused scores of the documents' sums and of how many runs return each."""
    return sums * counts
