"""A document's fused score is the sum of its rescored rows over the runs that return it (a run
without it adds nothing), in the runs' order, as pyserini.fusion's ``groupby().sum()`` computes it
with pandas 3.1.1 (the version the harness pins): pandas' compensated (Kahan) summation from 0.0,
except when each (topic, document)'s rows follow one another in the runs read one after the other
(runs that share no document, say), where pandas sums each group with numpy's ``add.reduceat``
instead. The two differ in the sign of a zero (a lone -0.0 stays -0.0 only in the second) and,
with three runs or more, in the last bit."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness.fusion.order import lexsort_in_topics

__all__ = ["Sums", "summed"]


@dataclass(frozen=True)
class Sums:
    """One entry per (topic, document), ordered by topic code, then doc id (byte order):
    ``topic`` (its topic code), ``docid``, ``total`` (the sum of its rows) and ``count`` (how
    many rows, one per run that returns it)."""

    topic: np.ndarray
    docid: np.ndarray
    total: np.ndarray
    count: np.ndarray


def summed(topics: np.ndarray, docids: np.ndarray, values: np.ndarray, which: np.ndarray, n_topics: int) -> Sums:
    """The sums of ``values`` by (topic code, doc id); ``which`` is each row's run (0, 1, ...),
    the rows given run after run, each run's rows in its order (pyserini's rows)."""
    width = docids.dtype.itemsize
    n_runs = int(which.max()) + 1 if len(which) else 0
    # group the rows by (topic, doc), each group's rows in run order
    words = docids.view(">u8").reshape(len(docids), width // 8) if len(docids) else np.zeros((0, 1), ">u8")
    native = [words[:, j].astype(np.uint64) for j in range(words.shape[1] - 1, -1, -1)]  # the same order
    order = lexsort_in_topics([which.astype(np.uint8 if n_runs < 256 else np.int64), *native], topics, n_topics)
    topics, values, words = topics[order], values[order], words[order]
    docids = words.view(f"S{width}").reshape(len(words)) if len(words) else docids  # the same bytes
    start = np.ones(len(order), dtype=bool)
    if len(order) > 1:
        start[1:] = (topics[1:] != topics[:-1]) | (words[1:] != words[:-1]).any(axis=1)
    group = np.cumsum(start) - 1
    heads = np.flatnonzero(start)
    member = np.arange(len(order)) - heads[group]
    if len(values) and _pandas_sums_by_reduceat(order, member, values):
        total = np.add.reduceat(values, heads)
    else:
        total = _kahan_sums(values, group, member, len(heads))
    return Sums(topics[heads], docids[heads], total, np.diff(np.r_[heads, len(order)]))


def _pandas_sums_by_reduceat(order: np.ndarray, member: np.ndarray, values: np.ndarray) -> bool:
    """Whether pandas 3.1's groupby sum over pyserini's rows (each run's rows, run after run)
    takes its ``ufunc.reduceat`` path: when its group ids never decrease, that is when every
    row of a group but the first directly follows the one before it in those rows (``order``
    maps the grouped rows back to them), and no value is NaN (pandas.core.groupby.ops,
    ``_cython_operation``)."""
    later = member[1:] > 0
    return bool(np.all(order[1:][later] == order[:-1][later] + 1)) and not np.isnan(values).any()


def _kahan_sums(values: np.ndarray, group: np.ndarray, member: np.ndarray, groups: int) -> np.ndarray:
    """Each group's sum of its values in order, compensated exactly as pandas' group_sum does
    it (pyserini's aggregation), one vectorised step per member position (at most one per run)."""
    # pandas' group_sum adds from 0.0 (so a lone -0.0 sums to 0.0); the first step leaves no
    # compensation ((t - 0) - y is 0)
    total = values[member == 0] + 0.0
    comp = np.zeros(groups)
    for j in range(1, int(member.max()) + 1 if len(member) else 0):
        rows = member == j
        g = group[rows]
        y = values[rows] - comp[g]
        t = total[g] + y
        c = (t - total[g]) - y
        comp[g] = np.where(np.isnan(c), 0.0, c)
        total[g] = t
    return total
