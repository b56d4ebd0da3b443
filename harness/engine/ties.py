"""Anserini's tied scores made strictly decreasing as float64 (numpy only: the run cache reads
its float32 scores back through it without the engine's Java side)."""

from __future__ import annotations

import numpy as np

__all__ = ["strictly_decreasing"]


def strictly_decreasing(scores: np.ndarray, starts=None) -> np.ndarray:
    """Scores in rank order as float64, the j-th repeat of a score lowered by j float64 ulps.
    ``starts``: where each ranking begins when ``scores`` holds several back to back.

    The input is non-increasing (Anserini's adjusted scores), so only equal neighbours need
    fixing; two distinct float32 values are millions of float64 ulps apart, so the lowered
    scores never reach the next distinct score.

    >>> strictly_decreasing(np.array([3.0, 3.0, 3.0, 1.0], dtype=np.float32)).tolist()
    [3.0, 2.9999999999999996, 2.999999999999999, 1.0]
    """
    s = scores.astype(np.float64)
    within = np.ones(s.size, dtype=bool)  # row i continues the ranking of row i - 1
    within[:1] = False
    if starts is not None:
        starts = np.asarray(starts, dtype=np.int64)
        within[starts[starts < s.size]] = False
    if s.size < 2 or not np.any((s[1:] >= s[:-1]) & within[1:]):
        return s
    idx = np.arange(s.size)
    first = ~within
    first[1:] |= s[1:] != s[:-1]
    repeat = idx - np.maximum.accumulate(np.where(first, idx, 0))  # 0, 1, 2... within a tie
    out = s - repeat * np.abs(np.spacing(s))
    if not np.all((out[1:] < out[:-1]) | ~within[1:]):  # not reachable for real scores; kept anyway
        out = s.copy()
        for i in range(1, out.size):
            if within[i] and out[i] >= out[i - 1]:
                out[i] = np.nextafter(out[i - 1], -np.inf)
    return out
