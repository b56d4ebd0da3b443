"""Run fusion: several runs in, one run out, vectorised with numpy (no Python loop per line).

pyserini.fusion 2.4.0's four methods give the same documents, order and float64 scores as
pyserini (tests/test_fuse.py checks it line by line), and combsum / combmnz add weights and
normalisations (policies.FUSION_METHODS, NORMALIZATIONS). The rules, each as pyserini has them:

1. Each run is rescored whole: rrf gives ``1 / (rrf_k + rank)`` from the rank column as written
   (a run built in memory has none: its positions 1..n); interpolation multiplies the first run
   by ``alpha`` and the second by ``1 - alpha``; average multiplies every run by ``1 / n``;
   normalize (and ``norm``) normalises per topic over *all* the topic's rows, before the cut.
2. Each run is cut to its first ``depth`` rows per topic, in file order.
3. A document's score is the sum over the runs that return it (a run without it adds
   nothing), in the runs' order, as pyserini's ``groupby().sum()`` computes it with pandas
   3.1.1 (the version the harness pins): with pandas' compensated (Kahan) summation from 0.0,
   except when each (topic, document)'s rows follow one another in the runs read one after the
   other (runs that share no document, say), where pandas sums each group with numpy's
   ``add.reduceat`` instead. The two differ in the sign of a zero (a lone -0.0 stays -0.0 only
   in the second) and, with three runs or more, in the last bit.
4. Each topic is sorted by score descending, then doc id ascending (byte order), and cut to
   ``k`` documents; ranks are 1..n.

Where the harness differs: topic ids stay as written (pyserini reads them with pandas, so
``001`` becomes ``1``, and ``1`` and ``001`` would be one topic); topics come in numeric order
when every id is an integer, else in string order (pyserini's order for its parsed ids). A
document listed twice in one run is an error (pyserini sums both rows). See docs/semantics.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from harness.formats.runs import Run
from harness.policies import FusionPolicy

__all__ = ["fuse"]

_INTEGER = re.compile(r"[+-]?\d+")


@np.errstate(over="ignore", invalid="ignore")  # scores that overflow: inf, or NaN refused below
def fuse(runs: Sequence[Run], policy: FusionPolicy | None = None) -> Run:
    """The fused run of ``runs`` (at least two) under ``policy``.

    >>> a = Run.from_ranked({"1": (["d1", "d2"], [3.0, 2.0])})
    >>> b = Run.from_ranked({"1": (["d2", "d3"], [9.0, 1.0])})
    >>> fused = fuse([a, b], FusionPolicy("rrf", rrf_k=60))
    >>> fused.ranked("1")[0], [round(s, 6) for s in fused.ranked("1")[1].tolist()]
    (['d2', 'd1', 'd3'], [0.032522, 0.016393, 0.016129])
    """
    policy = policy or FusionPolicy()
    runs = list(runs)
    n = len(runs)
    if n < 2:
        raise ValueError(f"fusion needs at least two runs (got {n})")
    if policy.method == "interpolation" and n != 2:
        raise ValueError(f"interpolation fuses exactly two runs (got {n})")
    if policy.weights is not None and len(policy.weights) != n:
        raise ValueError(f"weights: one per run ({n} runs, {len(policy.weights)} weights)")
    names = _topic_order({t for r in runs for t in r.topics()})
    code = {t: i for i, t in enumerate(names)}
    width = max(r.docids.dtype.itemsize for r in runs)
    topic_parts, doc_parts, value_parts, run_parts = [], [], [], []
    for i, run in enumerate(runs):
        lens = np.diff(run.offsets)
        seg = np.repeat(np.arange(len(lens)), lens)
        pos = np.arange(len(run), dtype=np.int64) - run.offsets[seg]
        values = _rescore(run, i, n, seg, pos, lens, policy)
        keep = slice(None) if policy.depth is None else pos < policy.depth
        codes = np.array([code[t] for t in run.topics()], dtype=np.int64)
        topic_parts.append(codes[seg[keep]])
        doc_parts.append(run.docids[keep].astype(f"S{width}"))
        value_parts.append(values[keep])
        run_parts.append(np.full(len(value_parts[-1]), i, dtype=np.int64))
    topics = np.concatenate(topic_parts)
    docids = np.concatenate(doc_parts)
    values = np.concatenate(value_parts)
    which = np.concatenate(run_parts)
    # group the rows by (topic, doc), each group's rows in run order
    words = docids.view(">u8").reshape(len(docids), width // 8) if len(docids) else np.zeros((0, 1), ">u8")
    native = [words[:, j].astype(np.uint64) for j in range(words.shape[1] - 1, -1, -1)]  # the same order
    order = _lexsort_in_topics([which.astype(np.uint8 if n < 256 else np.int64), *native], topics, len(names))
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
    if policy.method == "combmnz":
        total = total * np.diff(np.r_[heads, len(order)])
    if np.isnan(total).any():  # inf - inf on the way: infinite scores, or ones near float64's limit
        bad = int(np.flatnonzero(np.isnan(total))[0])
        raise ValueError(
            f"topic {names[topics[heads[bad]]]!r}, document {docids[heads[bad]].decode(errors='replace')!r}: "
            f"{policy.method} made its fused score NaN, the runs' scores being infinite (`inf` in a run) or "
            "overflowing float64 (their size is near 1.8e308, or a weight or alpha multiplies them that far); "
            "replace infinite scores or rescale the runs' scores"
        )
    g_topic, g_doc = topics[heads], docids[heads]
    # score descending within topic; the stable sort keeps doc ids ascending among equal scores
    out = _lexsort_in_topics([-total], g_topic, len(names), grouped=True)
    g_topic, g_doc, total = g_topic[out], g_doc[out], total[out]
    counts = np.bincount(g_topic, minlength=len(names))
    if policy.k is not None:
        first = np.r_[0, np.cumsum(counts)[:-1]]
        keep = (np.arange(len(g_topic)) - first[g_topic]) < policy.k
        g_doc, total, g_topic = g_doc[keep], total[keep], g_topic[keep]
        counts = np.minimum(counts, policy.k)
    present = counts > 0
    offsets = np.zeros(int(present.sum()) + 1, dtype=np.int64)
    np.cumsum(counts[present], out=offsets[1:])
    return Run([t for t, p in zip(names, present) if p], offsets, g_doc, total, "<fused>")


_LONG_TOPICS = 64  # rows per topic from which sorting topic by topic beats one sort of all rows


def _lexsort_in_topics(keys: list[np.ndarray], topics: np.ndarray, n_topics: int, grouped: bool = False) -> np.ndarray:
    """``np.lexsort((*keys, topics))``: the stable order by topic code, then by the keys (the
    last one first), computed topic by topic when topics hold many rows. ``grouped``: the
    topic codes are already ascending.

    Two 1M-line runs (1,000 topics): one lexsort of (run, doc id words, topic) over the 2M rows
    took 3.2 s on the loaded 2-core machine, the topics first (a radix sort of 16-bit codes)
    and then each topic's 2,000 rows 0.70 s; scores within topics 0.94 s against 0.16 s. Many
    short topics make the Python loop the cost, so below 64 rows per topic it is one lexsort
    (the topic codes as 16-bit integers where they fit: numpy radix-sorts those)."""
    n = len(topics)
    codes = topics.astype(np.uint16) if n_topics <= 1 << 16 else topics
    if n < _LONG_TOPICS * max(n_topics, 1):
        return np.lexsort((*keys, codes))
    o = np.arange(n) if grouped else np.argsort(codes, kind="stable")
    sorted_codes = codes[o]
    keys = [k[o] for k in keys] if not grouped else keys
    bounds = np.r_[0, np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1, n].tolist()
    out = np.empty(n, dtype=np.int64)
    for s, e in zip(bounds[:-1], bounds[1:]):
        part = [k[s:e] for k in keys]
        local = np.argsort(part[0], kind="stable") if len(part) == 1 else np.lexsort(part)
        out[s:e] = o[s:e][local]
    return out


def _topic_order(topics: set[str]) -> list[str]:
    """Numeric order when every id is an integer (pyserini's order: pandas reads them as
    integers), ids equal as numbers ordered as text; else string order."""
    if all(_INTEGER.fullmatch(t) for t in topics):
        return sorted(topics, key=lambda t: (int(t), t))
    return sorted(topics)


def _rescore(run: Run, i: int, n: int, seg, pos, lens, policy: FusionPolicy) -> np.ndarray:
    method, scores = policy.method, run.scores
    if method == "rrf":
        ranks = run.ranks if run.ranks is not None else pos + 1
        bad = np.flatnonzero(policy.rrf_k + ranks < 1)  # 1 / 0, or a negative share
        if len(bad):
            r = int(bad[0])
            raise ValueError(
                f"{run.source}: topic {run.topics()[seg[r]]!r}, document {run.docids[r].decode(errors='replace')!r}: "
                f"rank {int(ranks[r])} with rrf_k {policy.rrf_k}; reciprocal rank fusion needs rank + rrf_k >= 1 "
                "(ranks from 1, or from 0 with rrf_k >= 1)"
            )
        return 1 / (policy.rrf_k + ranks).astype(np.float64)
    if method == "interpolation":
        return scores * (policy.alpha if i == 0 else 1 - policy.alpha)
    if method == "average":
        return scores * (1 / n)
    if method == "normalize":
        return _normalized(scores, seg, pos, lens, "minmax")
    values = _normalized(scores, seg, pos, lens, policy.norm)
    return values if policy.weights is None else values * policy.weights[i]


def _normalized(scores: np.ndarray, seg, pos, lens, norm: str) -> np.ndarray:
    if norm == "none" or not len(scores):
        return scores.astype(np.float64, copy=True)
    starts = np.r_[0, np.cumsum(lens)[:-1]][lens > 0]
    full = np.flatnonzero(lens > 0)  # reduceat over non-empty topics only
    at = np.full(len(lens), -1, dtype=np.int64)
    at[full] = np.arange(len(full))
    s = at[seg]
    if norm == "rank":
        return 1 - pos / lens[seg].astype(np.float64)
    if norm == "minmax":
        low = np.minimum.reduceat(scores, starts)[s]
        span = np.maximum.reduceat(scores, starts)[s] - low
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (scores - low) / span
        out[span == 0] = 1.0
        return out
    # zscore: the population standard deviation, as numpy's std (ddof=0)
    count = lens[lens > 0].astype(np.float64)
    mean = (np.add.reduceat(scores, starts) / count)[s]
    dev = scores - mean
    std = np.sqrt(np.add.reduceat(dev * dev, starts) / count)[s]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = dev / std
    out[std == 0] = 0.0
    return out


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
