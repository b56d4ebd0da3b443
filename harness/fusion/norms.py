"""The normalisations of combsum and combmnz (policies.NORMALIZATIONS), and normalize's min-max:
each per topic, over *all* the topic's rows, before the depth cut; one function per name in
:data:`NORMS`, the dispatch table."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from harness.fusion.rows import TopicRows

__all__ = ["NORMS", "normalized", "minmax"]


def normalized(scores: np.ndarray, rows: TopicRows, norm: str) -> np.ndarray:
    """``scores`` (a run's, with its ``rows``) normalised by ``norm``, a key of :data:`NORMS`;
    always a new float64 array."""
    if not len(scores):
        return scores.astype(np.float64, copy=True)
    return NORMS[norm](scores, rows)


def as_written(scores: np.ndarray, rows: TopicRows) -> np.ndarray:
    return scores.astype(np.float64, copy=True)


def minmax(scores: np.ndarray, rows: TopicRows) -> np.ndarray:
    """``(s - min) / (max - min)``; a topic whose scores are all equal gives 1.0 (pyserini)."""
    starts, s = _topic_starts(rows)
    low = np.minimum.reduceat(scores, starts)[s]
    span = np.maximum.reduceat(scores, starts)[s] - low
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (scores - low) / span
    out[span == 0] = 1.0
    return out


def zscore(scores: np.ndarray, rows: TopicRows) -> np.ndarray:
    """``(s - mean) / sd``, the population standard deviation (numpy's std, ddof=0); a topic
    whose scores are all equal gives 0.0."""
    starts, s = _topic_starts(rows)
    count = rows.lengths[rows.lengths > 0].astype(np.float64)
    mean = (np.add.reduceat(scores, starts) / count)[s]
    dev = scores - mean
    std = np.sqrt(np.add.reduceat(dev * dev, starts) / count)[s]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = dev / std
    out[std == 0] = 0.0
    return out


def rank(scores: np.ndarray, rows: TopicRows) -> np.ndarray:
    """``1 - (position - 1) / n``, position 1..n in the file's order (not by score)."""
    return 1 - rows.position / rows.lengths[rows.topic].astype(np.float64)


NORMS: dict[str, Callable[[np.ndarray, TopicRows], np.ndarray]] = {
    "none": as_written,
    "minmax": minmax,
    "zscore": zscore,
    "rank": rank,
}


def _topic_starts(rows: TopicRows) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each topic that has rows (for ``ufunc.reduceat``, which an empty
    topic would upset), and each row's index among those topics."""
    lens = rows.lengths
    starts = np.r_[0, np.cumsum(lens)[:-1]][lens > 0]
    full = np.flatnonzero(lens > 0)
    at = np.full(len(lens), -1, dtype=np.int64)
    at[full] = np.arange(len(full))
    return starts, at[rows.topic]
